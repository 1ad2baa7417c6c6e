import ChildProcessSupport
import Foundation
import SessionKit

/// One run of `SessionKitCrashTool` to its end: every line it printed and how it ended.
///
/// The output is read to its end by a thread of its own, so awaiting a run suspends the test
/// task instead of blocking a thread of the concurrency pool.
struct CrashToolRun: Sendable {
    enum LaunchError: Error {
        case toolNotFound
    }

    var lines: [String]
    var termination: ChildTermination
    /// What the tool wrote on standard error (the runtime's crash backtrace, if it crashed).
    var standardError: String

    /// Whether the tool exited with status 0 and the runtime reported no crash.
    var succeeded: Bool {
        termination == .exited(0) && !ChildStandardError.holdsCrashReport(standardError)
    }

    /// For a failure: how the tool ended, its last lines and its standard error.
    var report: String {
        "ended with \(termination) after \(lines.suffix(3)); standard error:\n\(standardError)"
    }

    /// The last line parsed as the tool's JSON summary.
    var summary: [String: Any]? {
        guard let last = lines.last, let data = last.data(using: .utf8) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }

    /// An integer member of the summary; -1 when missing.
    func count(_ name: String) -> Int {
        (summary?[name] as? Int) ?? -1
    }

    /// Starts the tool with `arguments`; the returned task finishes when the tool exits.
    static func start(_ arguments: [String]) throws -> Task<CrashToolRun, Never> {
        let process = Process()
        process.executableURL = try toolURL()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        let standardError = try ChildStandardError()
        let exit = Locked<(status: ChildTermination?, waiter: CheckedContinuation<ChildTermination, Never>?)>((nil, nil))
        process.terminationHandler = { finished in
            let termination = ChildTermination(finished)
            let waiter = exit.withLock { state -> CheckedContinuation<ChildTermination, Never>? in
                state.status = termination
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: termination)
        }
        try standardError.run(process)
        try? output.fileHandleForWriting.close()
        let reading = output.fileHandleForReading
        return Task {
            let data = await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
                Thread {
                    continuation.resume(returning: reading.readDataToEndOfFile())
                }.start()
            }
            let termination = await withCheckedContinuation { (continuation: CheckedContinuation<ChildTermination, Never>) in
                let known = exit.withLock { state -> ChildTermination? in
                    if let status = state.status { return status }
                    state.waiter = continuation
                    return nil
                }
                if let known { continuation.resume(returning: known) }
            }
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            return CrashToolRun(lines: lines, termination: termination, standardError: standardError.text)
        }
    }

    /// `SessionKitCrashTool`, built next to the test binary.
    static func toolURL() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("SessionKitCrashTool")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw LaunchError.toolNotFound
    }
}
