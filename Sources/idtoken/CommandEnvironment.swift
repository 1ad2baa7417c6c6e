import Foundation

/// What `idtoken` needs from the outside world, injectable so tests can run commands in-process.
struct CommandEnvironment {
    /// Reads a whole file.
    var readFile: (String) throws -> [UInt8]
    /// Reads all of standard input.
    var readStandardInput: () throws -> [UInt8]
    /// The current time, used when `--now` is not given.
    var now: () -> Date

    /// The real process environment.
    static var process: CommandEnvironment {
        CommandEnvironment(
            readFile: { path in [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) },
            readStandardInput: { [UInt8](FileHandle.standardInput.readDataToEndOfFile()) },
            now: { Date() }
        )
    }
}

/// What a command produced: one line for stdout, an optional message for stderr, an exit status.
struct CommandOutput: Equatable {
    var standardOutput: String
    var standardError: String
    var status: Int32
}
