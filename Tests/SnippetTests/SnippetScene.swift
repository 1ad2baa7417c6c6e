import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Where a snippet marked `run given:NAME` runs: instead of the givens' session, one that the
/// scene has brought to the moment the snippet is about, on the test kit, and a `print` that
/// records each line with the session's stage at that moment. After the snippet, ``finish()``
/// checks that it did what the document says.
@MainActor
final class SnippetScene {
    /// What the snippet printed, and the stage when it did.
    struct Line: Equatable, CustomStringConvertible {
        var text: String
        var stage: SessionStage

        var description: String { "\(text) [\(stage)]" }
    }

    /// The session the snippet uses as `session`.
    let session: Session
    /// What the snippet printed, in order.
    private(set) var printed: [Line] = []
    private let check: @MainActor (SnippetScene) async throws -> Void

    private init(session: Session, check: @escaping @MainActor (SnippetScene) async throws -> Void) {
        self.session = session
        self.check = check
    }

    /// The snippet's `print`: records the line and the stage.
    var print: @MainActor (String) -> Void {
        { [self] text in printed.append(Line(text: text, stage: session.stage)) }
    }

    /// Checks what the snippet did, then ends the scene's session.
    func finish() async throws {
        try await check(self)
        await session.shutdown()
    }
}

extension SnippetScene {
    /// The app was killed while its sign-out waited to retry the revocation, and launches again;
    /// the provider answers now. The stored record still journals the sign-out.
    static func relaunchMidSignOut() async throws -> SnippetScene {
        let env = try SimulatedSessionEnvironment()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        env.provider.script(.connectionFailure, on: .revocation)
        let first = env.session
        let signOut = Task { try await first.signOut() }
        // The first attempt failed: the sign-out sleeps on its backoff, journaled.
        await env.clock.waitForSleepers()
        #expect(first.stage == .revoking)
        await first.shutdown()
        await #expect(throws: SessionError.shutDown) { try await signOut.value }
        #expect(env.store.record.pendingOperation != nil, "the sign-out is journaled")

        let relaunched = await env.relaunch()
        return SnippetScene(session: relaunched) { scene in
            // The end is the provider's confirmation, printed once the session is signed out; the
            // replayed current stage (`current stage`) would be neither.
            let end = "The journaled operation ended: \(TransitionReason.revocationConfirmed)"
            #expect(scene.printed.map(\.text) == ["Launched in revoking", end])
            #expect(scene.printed.last?.stage == .signedOut)
            #expect(env.store.record.isEmpty, "wiped once the provider confirmed")
            #expect(env.provider.requestCount(for: .revocation) == 2)
        }
    }
}
