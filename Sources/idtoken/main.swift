import Foundation

let result: CommandOutput
do {
    result = try IDTokenCommand.parse(Array(CommandLine.arguments.dropFirst())).run(in: .process)
} catch {
    result = CommandOutput(
        standardOutput: "", standardError: "idtoken: \(error.message)\nRun idtoken --help for usage.\n", status: 2)
}
FileHandle.standardOutput.write(Data(result.standardOutput.utf8))
FileHandle.standardError.write(Data(result.standardError.utf8))
exit(result.status)
