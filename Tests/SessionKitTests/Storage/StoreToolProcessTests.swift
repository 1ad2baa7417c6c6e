import ChildProcessSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child that crashes by itself is told apart from the test's own kill, and the backtrace the
/// Swift runtime prints for it reaches the failure a test records.
@Suite("Child processes' standard error")
struct StoreToolProcessTests {
    /// Whether this process (and so the child, built alike) runs under the thread sanitizer, which
    /// catches the child's crash itself and exits with its own status instead of the signal.
    static let underThreadSanitizer =
        dlsym(nil, "__tsan_init") != nil || ProcessInfo.processInfo.arguments.first?.contains("/tsan/") == true

    @Test(.disabled(if: underThreadSanitizer, "the thread sanitizer reports the child's crash in its own way"))
    func aCrashingChildsBacktraceReachesItsFailureReport() async throws {
        let child = try StoreToolProcess(tool: ["crash", "unused"])
        #expect(await child.remainingLines() == ["crashing"])
        let termination = await child.termination()
        #expect(termination == .signalled(SIGSEGV))
        #expect(termination.isCrash)
        #expect(child.standardError.holdsCrashReport)

        let report = child.standardError.report("SessionKitStoreTool", ended: termination)
        #expect(report.hasPrefix("SessionKitStoreTool ended with signal 11 (SIGSEGV); its standard error:\n"))
        #expect(report.contains("*** Program crashed: Bad pointer dereference"), "\(report)")
        // Symbolicated: the crashing frame names the tool's source file.
        #expect(report.contains("main.swift:"), "\(report)")

        await withKnownIssue {
            await child.expectEnd(.exited(0))
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("*** Program crashed") && $0.rawValue.contains("expected exit status 0") }
        }
    }

    @Test func theTestsOwnKillIsNoCrash() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try StoreToolProcess(tool: ["hold", directory.storePath])
        #expect(await child.waitForLine("held"))
        child.kill()
        #expect(await child.termination() == .killed)
        #expect(!(await child.termination()).isCrash)
        #expect(!child.standardError.holdsCrashReport)
        #expect(child.standardError.text.isEmpty)
    }
}
