import Foundation
import SessionKitJOSE
import SessionKitTesting
import Testing

@testable import SessionKit

/// The session, and every stage's payload in every stage, rendered every way Swift prints a
/// value (`description`, `debugDescription`, `dump`, interpolation, a walk over `Mirror`),
/// shows no secret: not the PKCE verifier, `state`, `nonce` or code of a handoff, not a token.
@Suite("Session renderings")
struct SessionRenderingTests {
    /// Everything Swift can print of `value`, its mirror's children included, recursively.
    static func renderings(of value: Any, depth: Int = 0) -> [String] {
        var texts = [String(describing: value), String(reflecting: value), "\(value)"]
        var dumped = ""
        dump(value, to: &dumped)
        texts.append(dumped)
        guard depth < 6 else { return texts }
        for child in Mirror(reflecting: value).children {
            texts += renderings(of: child.value, depth: depth + 1)
        }
        return texts
    }

    /// The secrets of the sign-in attempt the presenter was shown: `state`, `nonce`, the challenge.
    static func attemptSecrets(_ request: HandoffRequest) -> [String] {
        let items = URLComponents(url: request.authorizationURL, resolvingAgainstBaseURL: false)?.queryItems ?? []
        return items.filter { ["state", "nonce", "code_challenge"].contains($0.name) }.compactMap(\.value)
    }

    private func expectNoSecret(in values: [Any], secrets: [String], _ stage: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let texts = values.flatMap { Self.renderings(of: $0) }
        for secret in secrets where !secret.isEmpty {
            let leaked = texts.contains { $0.contains(secret) }
            #expect(!leaked, "a secret shows while \(stage)", sourceLocation: sourceLocation)
        }
    }

    @Test func noStageShowsASecret() async throws {
        let h = try SimulatedSessionEnvironment()
        let session = h.session
        // Handoff: the attempt's parameters live in the stage.
        h.presenter.enqueue(.neverAnswer)
        let signIn = Task { try await session.signIn() }
        await h.presenter.waitForSuspendedPresentations(count: 1)
        let request = try #require(h.presenter.presentedRequests.last)
        var secrets = Self.attemptSecrets(request)
        #expect(secrets.count == 3)
        expectNoSecret(in: [session, request, session.core.withLock { $0 }], secrets: secrets, "in the handoff")

        // Verifying: the code and the verifier are in flight.
        h.provider.script(.slow(.seconds(5)), on: .token)
        let callback = try h.authorizePending()
        let code = URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "code" }?.value
        secrets.append(try #require(code))
        #expect(session.handle(callback))
        #expect(session.stage == .verifying)
        expectNoSecret(in: [session, session.core.withLock { $0 }], secrets: secrets, "verifying")
        await h.advanceToNextSleeper()
        _ = try await signIn.value

        // Active, then refreshing: tokens are held.
        secrets += h.issued.all.map(\.value)
        expectNoSecret(in: [session, session.core.withLock { $0 }, try await session.validAccessToken()], secrets: secrets, "active")
        h.clock.advance(by: .seconds(3600))
        h.provider.script(.slow(.seconds(5)), on: .token)
        let refresh = Task { try await session.validAccessToken() }
        await h.waitForWaitingCallers(1)
        expectNoSecret(in: [session, session.core.withLock { $0 }], secrets: secrets, "refreshing")
        await h.advanceToNextSleeper()
        _ = try await refresh.value

        // Revoking: the journaled sign-out.
        secrets += h.issued.all.map(\.value)
        h.provider.script(.slow(.seconds(5)), on: .revocation)
        let signOut = Task { try await session.signOut() }
        await h.waitUntil("revoking") { session.stage == .revoking }
        expectNoSecret(in: [session, session.core.withLock { $0 }, h.store.record], secrets: secrets, "revoking")
        await h.advanceToNextSleeper()
        try await signOut.value
    }

    @Test func theHandoffParametersRenderRedacted() {
        let attempt = SignInAttempt(
            authorizationURL: URL(string: "https://id.example/authorize?state=S3CR3T-state&nonce=S3CR3T-nonce")!, state: "S3CR3T-state",
            nonce: "S3CR3T-nonce", codeVerifier: "S3CR3T-verifier", codeChallenge: "S3CR3T-challenge")
        let callback = CallbackParameters(code: "S3CR3T-code", state: "S3CR3T-state", error: nil, issuer: nil)
        let request = HandoffRequest(authorizationURL: attempt.authorizationURL, redirectURI: URL(string: "com.example.app:/cb")!)
        for text in [attempt, callback, request].flatMap({ Self.renderings(of: $0) }) {
            #expect(!text.contains("S3CR3T"))
        }
    }
}
