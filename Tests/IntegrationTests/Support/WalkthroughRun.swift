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
        var errorOutput = Data()
        var closed = false
        var status: Int32?
        /// Resumed with `false` after every change, so each re-checks its condition.
        var waiters: [CheckedContinuation<Bool, Never>] = []
    }

    private let state = Locked(State())

    /// Starts `walkthrough` with `arguments`; standard error is kept for ``finished()``.
    static func start(_ arguments: [String]) throws -> WalkthroughRun {
        let run = WalkthroughRun()
        let process = Process()
        process.executableURL = try executableURL()
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        process.terminationHandler = { finished in run.update { $0.status = finished.terminationStatus } }
        try process.run()
        try? output.fileHandleForWriting.close()
        try? errors.fileHandleForWriting.close()
        let reading = output.fileHandleForReading
        let errorReading = errors.fileHandleForReading
        Thread {
            let data = errorReading.readDataToEndOfFile()
            run.update { $0.errorOutput = data }
        }.start()
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

    /// Every line and the exit status, once the process exited and its output ended.
    func finished() async -> (lines: [String], status: Int32) {
        let (lines, status, _) = await finishedWithErrors()
        return (lines, status)
    }

    /// Like ``finished()``, with what the process wrote to standard error.
    func finishedWithErrors() async -> (lines: [String], status: Int32, errors: String) {
        await wait { $0.closed && $0.status != nil }
        return state.withLock { ($0.lines, $0.status ?? -1, String(decoding: $0.errorOutput, as: UTF8.self)) }
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
