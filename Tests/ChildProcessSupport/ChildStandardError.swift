import Foundation

/// A child process's standard error, written to a temporary file of its own, so a test can attach
/// what the child printed — the Swift runtime's crash backtrace included — to a failure.
///
/// A file instead of a pipe: nothing has to drain it while the child runs, so a child that prints
/// a long backtrace never blocks on a full pipe, and the text is complete once the child exited.
///
/// Every child a test starts goes through ``run(_:)``, which also turns on the runtime's
/// backtracer for the child (see ``backtraceSettings``). The children print no secret on standard
/// error, and the backtrace prints no register or memory contents, so the text is safe to show.
public final class ChildStandardError: Sendable {
    /// `SWIFT_BACKTRACE` for children: a symbolicated backtrace of every thread on standard error
    /// (standard output is the children's line protocol), without waiting for a debugger, colours,
    /// registers or the list of loaded images.
    public static let backtraceSettings =
        "enable=yes,interactive=no,color=no,output-to=stderr,threads=all,registers=none,images=none,sanitize=yes"

    /// At most this many bytes of the end of the text go into a report: a backtrace fits easily.
    static let reportLimit = 32 * 1024

    private let url: URL

    /// A new, empty file in the temporary directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("child-stderr-\(UUID().uuidString).txt")
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Starts `process` with its standard error in this file and the runtime's backtracer on.
    public func run(_ process: Process) throws {
        var environment = process.environment ?? ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = Self.backtraceSettings
        process.environment = environment
        let handle = try FileHandle(forWritingTo: url)
        process.standardError = handle
        defer { try? handle.close() }
        try process.run()
    }

    /// Everything the child wrote so far.
    public var text: String {
        (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }

    /// Whether the text holds the runtime's report of a crash or a fatal error, which can be
    /// there even when the test's own SIGKILL ended the child while the backtracer ran.
    public var holdsCrashReport: Bool {
        Self.holdsCrashReport(text)
    }

    /// Whether `text`, a child's standard error, holds the runtime's report of a crash or a fatal error.
    public static func holdsCrashReport(_ text: String) -> Bool {
        ["*** Program crashed", "*** Signal ", "Fatal error:"].contains { text.contains($0) }
    }

    /// What a failure says about a child that ended unexpectedly: who, how, and its standard error.
    public func report(_ child: String, ended termination: ChildTermination) -> String {
        var text = text
        if text.utf8.count > Self.reportLimit {
            text = "…" + String(decoding: text.utf8.suffix(Self.reportLimit), as: UTF8.self)
        }
        let body = text.isEmpty ? " (empty)" : ":\n" + text
        return "\(child) ended with \(termination); its standard error\(body)"
    }
}
