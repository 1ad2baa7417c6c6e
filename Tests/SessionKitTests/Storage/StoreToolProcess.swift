import ChildProcessSupport
import Foundation
import SessionKit
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A running `SessionKitStoreTool` (or another program), with its output as a stream of lines.
///
/// Lines are read by a dedicated thread, so waiting for one suspends the test task instead of
/// blocking a thread of the concurrency pool. Standard error goes to a file of its own (see
/// `ChildStandardError`), shown when the child ends unexpectedly.
final class StoreToolProcess: Sendable {
    enum LaunchError: Error {
        case toolNotFound
    }

    private let process: Process
    /// The write end of the child's standard input, until ``closeInput()`` or the child's exit
    /// closes it. Left to deallocation, one such descriptor per child stayed open (measured), and
    /// with about 1 360 of them `Process.run()` crashed the test process: on Linux it copies 256
    /// bytes of every `/proc/self/fd` entry, which reads past glibc's 32 KiB directory buffer once
    /// the entries fill it (swift-corelibs-foundation pull request 5472, not in Swift 6.3.1).
    private let input: InputEnd
    private let lines = LineBuffer()
    private let exit = ExitStatus()
    /// What the child wrote on standard error, the runtime's crash backtrace included.
    let standardError: ChildStandardError

    /// The store tool next to the test binary.
    static func toolURL() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            let candidate = directory.appendingPathComponent("SessionKitStoreTool")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        throw LaunchError.toolNotFound
    }

    /// Starts the store tool with `arguments`.
    convenience init(tool arguments: [String]) throws {
        try self.init(executable: try Self.toolURL(), arguments: arguments)
    }

    init(executable: URL, arguments: [String]) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let inputPipe = Pipe()
        let outputPipe = Pipe()
        process.standardInput = inputPipe
        process.standardOutput = outputPipe
        self.process = process
        let input = InputEnd(inputPipe.fileHandleForWriting)
        self.input = input
        standardError = try ChildStandardError()
        let lines = lines
        let exit = exit
        process.terminationHandler = { finished in
            input.close()
            exit.finish(ChildTermination(finished))
        }
        try standardError.run(process)
        // Only the child should hold the pipe ends it uses.
        try? inputPipe.fileHandleForReading.close()
        let reading = outputPipe.fileHandleForReading
        try? outputPipe.fileHandleForWriting.close()
        let descriptor = reading.fileDescriptor
        let reader = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                pending += buffer[0..<count]
                while let newline = pending.firstIndex(of: 0x0A) {
                    lines.append(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            try? reading.close()
            lines.finish()
        }
        reader.start()
    }

    /// The process id.
    var pid: Int32 { process.processIdentifier }

    /// The next line of output, or nil once the output ended.
    func nextLine() async -> String? {
        await lines.next()
    }

    /// Reads lines until one equals `expected`; false if the output ended first.
    func waitForLine(_ expected: String) async -> Bool {
        while let line = await nextLine() {
            if line == expected { return true }
        }
        return false
    }

    /// All remaining lines until the output ends.
    func remainingLines() async -> [String] {
        var lines: [String] = []
        while let line = await nextLine() { lines.append(line) }
        return lines
    }

    /// Closes the child's standard input.
    func closeInput() {
        input.close()
    }

    /// Sends SIGKILL.
    func kill() {
        sendKill(process.processIdentifier)
    }

    /// Waits for the process to exit and returns how it ended.
    func termination() async -> ChildTermination {
        await exit.wait()
    }

    /// Waits for the process to exit; an end other than `expected`, or a crash report on standard
    /// error, is recorded as an issue that shows the child's standard error.
    func expectEnd(_ expected: ChildTermination, sourceLocation: SourceLocation = #_sourceLocation) async {
        let termination = await termination()
        if termination != expected || standardError.holdsCrashReport {
            Issue.record(
                "\(standardError.report(process.executableURL?.lastPathComponent ?? "the child", ended: termination)) (expected \(expected))",
                sourceLocation: sourceLocation)
        }
    }
}

private func sendKill(_ pid: Int32) {
    _ = kill(pid, SIGKILL)
}

/// The write end of a child's standard input, closed once by whoever comes first.
private final class InputEnd: Sendable {
    private let handle: Locked<FileHandle?>

    init(_ handle: FileHandle) {
        self.handle = Locked(handle)
    }

    func close() {
        let handle = handle.withLock { handle in
            defer { handle = nil }
            return handle
        }
        try? handle?.close()
    }
}

/// Lines from a reader thread for one consumer task.
private final class LineBuffer: Sendable {
    private struct State {
        var lines: [String] = []
        var finished = false
        var waiter: CheckedContinuation<String?, Never>?
    }

    private let state = Locked(State())

    func append(_ line: String) {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.lines.append(line)
            return nil
        }
        waiter?.resume(returning: line)
    }

    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<String?, Never>? in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    func next() async -> String? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> String?? in
                if !state.lines.isEmpty { return .some(state.lines.removeFirst()) }
                if state.finished { return .some(nil) }
                state.waiter = continuation
                return .none
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// How a child ended, awaited by any number of tasks.
private final class ExitStatus: Sendable {
    private struct State {
        var status: ChildTermination?
        var waiters: [CheckedContinuation<ChildTermination, Never>] = []
    }

    private let state = Locked(State())

    func finish(_ status: ChildTermination) {
        let waiters = state.withLock { state in
            state.status = status
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: status) }
    }

    func wait() async -> ChildTermination {
        await withCheckedContinuation { continuation in
            let status = state.withLock { state -> ChildTermination? in
                if let status = state.status { return status }
                state.waiters.append(continuation)
                return nil
            }
            if let status { continuation.resume(returning: status) }
        }
    }
}
