import Foundation
import SessionKit

/// One run of a package executable (`walkthrough`, `idtoken`) as a child process, with standard
/// output and standard error captured whole, so a failed expectation can show what it said.
struct CommandRun: Sendable, CustomStringConvertible {
    enum LaunchError: Error {
        case notFound(String)
    }

    var arguments: [String]
    var status: Int32
    var standardOutput: String
    var standardError: String

    var lines: [String] { standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLastEmpty() }

    /// The command line, its status and both streams, for a failure message.
    var description: String {
        "\(arguments.joined(separator: " ")) exited \(status)\n--- stdout\n\(standardOutput)--- stderr\n\(standardError)"
    }

    /// Runs `executable` (built next to the test binary) with `arguments` and `input` on standard
    /// input, and returns once it exited and both streams ended.
    static func run(_ executable: String, _ arguments: [String], input: String = "") async throws -> CommandRun {
        let process = Process()
        process.executableURL = try executableURL(executable)
        process.arguments = arguments
        let (output, error, standardInput) = (Pipe(), Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = error
        process.standardInput = standardInput
        try process.run()
        try? output.fileHandleForWriting.close()
        try? error.fileHandleForWriting.close()
        try? standardInput.fileHandleForReading.close()
        let writer = standardInput.fileHandleForWriting
        return await withCheckedContinuation { (continuation: CheckedContinuation<CommandRun, Never>) in
            // Threads of their own block on the pipes and the exit, never the concurrency pool.
            Thread {
                let errorText = Locked(Data())
                let errorDone = DispatchSemaphore(value: 0)
                Thread {
                    let data = error.fileHandleForReading.readDataToEndOfFile()
                    errorText.withLock { $0 = data }
                    errorDone.signal()
                }.start()
                writer.write(Data(input.utf8))
                try? writer.close()
                let outputText = output.fileHandleForReading.readDataToEndOfFile()
                errorDone.wait()
                process.waitUntilExit()
                continuation.resume(
                    returning: CommandRun(
                        arguments: [executable] + arguments, status: process.terminationStatus,
                        standardOutput: String(decoding: outputText, as: UTF8.self),
                        standardError: String(decoding: errorText.withLock { $0 }, as: UTF8.self)))
            }.start()
        }
    }

    private static func executableURL(_ name: String) throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw LaunchError.notFound(name)
    }
}

extension Array where Element == String {
    /// Without the empty string a final newline leaves.
    fileprivate func dropLastEmpty() -> [String] {
        last == "" ? Array(dropLast()) : self
    }
}
