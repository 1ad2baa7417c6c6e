import ChildProcessSupport
import Foundation
import SessionKit

/// The `walkthrough` executable running as a child process, read line by line while it runs, so
/// a test can answer what it prints (a device sign-in's code) before it exits.
final class WalkthroughRun: Sendable {
    enum LaunchError: Error {
        case notFound
    }

    private struct State {
        var lines: [String] = []
        var partial = Data()
        var closed = false
        var termination: ChildTermination?
        /// Resumed with `false` after every change, so each re-checks its condition.
        var waiters: [CheckedContinuation<Bool, Never>] = []
    }

    private let state = Locked(State())
    /// The walkthrough's prompts and, if it crashed, the runtime's backtrace.
    private let standardError: ChildStandardError

    private init() throws {
        standardError = try ChildStandardError()
    }

    /// Starts `walkthrough` with `arguments`; standard error goes to a file, shown by ``finished()``'s report.
    static func start(_ arguments: [String]) throws -> WalkthroughRun {
        let run = try WalkthroughRun()
        let process = Process()
        process.executableURL = try executableURL()
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { finished in
            let termination = ChildTermination(finished)
            run.update { $0.termination = termination }
        }
        try run.standardError.run(process)
        try? output.fileHandleForWriting.close()
        let reading = output.fileHandleForReading
        // A thread of its own reads the pipe, so no thread of the concurrency pool blocks on it.
        Thread {
            while true {
                let chunk = reading.availableData
                if chunk.isEmpty { break }
                run.update { state in
                    state.partial.append(chunk)
                    while let newline = state.partial.firstIndex(of: UInt8(ascii: "\n")) {
                        state.lines.append(String(decoding: state.partial[state.partial.startIndex..<newline], as: UTF8.self))
                        state.partial.removeSubrange(state.partial.startIndex...newline)
                    }
                }
            }
            run.update { $0.closed = true }
        }.start()
        return run
    }

    /// The first line printed that starts with `prefix`; `nil` if the output ends without one.
    func line(startingWith prefix: String) async -> String? {
        await wait { state in state.closed || state.lines.contains { $0.hasPrefix(prefix) } }
        return state.withLock { $0.lines.first { $0.hasPrefix(prefix) } }
    }

    /// Every line, how the process ended and a report for a failure (how it ended, every line,
    /// its standard error), once the process exited and its output ended.
    func finished() async -> (lines: [String], termination: ChildTermination, report: String) {
        await wait { $0.closed && $0.termination != nil }
        let (lines, termination) = state.withLock { ($0.lines, $0.termination ?? .exited(-1)) }
        let report = standardError.report("walkthrough", ended: termination) + "\nwalkthrough output:\n" + lines.joined(separator: "\n")
        return (lines, termination, report)
    }

    /// Every line, the exit status (-1 for a signal) and what the process wrote to standard error.
    func finishedWithErrors() async -> (lines: [String], status: Int32, errors: String) {
        let (lines, termination, _) = await finished()
        let status: Int32 = if case .exited(let code) = termination { code } else { -1 }
        return (lines, status, standardError.text)
    }

    /// Whether the walkthrough exited with status 0 and the runtime reported no crash.
    func succeeded(_ termination: ChildTermination) -> Bool {
        termination == .exited(0) && !standardError.holdsCrashReport
    }

    private func update(_ change: (inout State) -> Void) {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            change(&state)
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: false) }
    }

    private func wait(until condition: @escaping (State) -> Bool) async {
        while true {
            let satisfied = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let done = state.withLock { state -> Bool in
                    if condition(state) { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if done { continuation.resume(returning: true) }
            }
            if satisfied { return }
        }
    }

    /// `walkthrough`, built next to the test binary.
    private static func executableURL() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("walkthrough")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw LaunchError.notFound
    }
}
