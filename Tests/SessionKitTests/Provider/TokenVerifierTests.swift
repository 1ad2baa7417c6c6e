import Foundation
import SessionKitJOSE
import Testing

@testable import SessionKit

@Suite struct TokenVerifierTests {
    private let keys: ProviderTestKeys
    private let wallClock = SettableWallClock()
    private let transport: RecordingTransport
    private let configuration: ProviderConfiguration

    init() throws {
        keys = try ProviderTestKeys()
        configuration = try ProviderTestKeys.configuration()
        transport = RecordingTransport(always: HTTPResponse(status: 200, body: ProviderTestKeys.jwksBody([("k1", keys.signing)])))
    }

    private var now: Date { wallClock.current }

    private func verifier(requireIDTokenOnRefresh: Bool = true) -> TokenVerifier {
        let wallClock = wallClock
        let client = ProviderClient(configuration: configuration, transport: transport, now: { wallClock.now() })
        return TokenVerifier(
            configuration: configuration, keys: JWKSCache(client: client), skew: 60, allowMissingKeyID: false,
            requireIDTokenOnRefresh: requireIDTokenOnRefresh, defaultAccessTokenLifetime: 300)
    }

    private func serve(_ published: [(kid: String, key: RSAPrivateKey)]) {
        let body = ProviderTestKeys.jwksBody(published)
        transport.respond { _ in .success(HTTPResponse(status: 200, body: body)) }
    }

    private func response(idToken: String?, refreshToken: String? = "RT-new", expiresIn: Double? = 600) -> TokenResponse {
        TokenResponse(
            accessToken: Secret("AT-new"), expiresIn: expiresIn, refreshToken: refreshToken.map(Secret.init),
            idToken: idToken.map(Secret.init))
    }

    private func previous(
        issuer: String = ProviderTestKeys.issuer, subject: String = "alice", audience: [String] = [ProviderTestKeys.clientID]
    ) -> StoredSession {
        StoredSession(
            refreshToken: Secret("RT-old"), accessToken: Secret("AT-old"), accessTokenExpiresAt: now, idToken: Secret("old.id.token"),
            issuer: issuer, subject: subject, audience: audience, rotation: 4)
    }

    private func token(
        _ key: RSAPrivateKey, kid: String?, subject: String = "alice", audience: [String] = [ProviderTestKeys.clientID],
        nonce: String? = nil
    ) throws -> String {
        try ProviderTestKeys.idToken(key: key, kid: kid, now: now, subject: subject, audience: audience, nonce: nonce)
    }

    private func expectRejection(
        _ expected: SessionError, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws(SessionError) -> VerifiedTokens
    ) async {
        do {
            let tokens = try await body()
            Issue.record("verified tokens for \(tokens.identity.subject)", sourceLocation: sourceLocation)
        } catch {
            #expect(error == expected, sourceLocation: sourceLocation)
        }
    }

    // MARK: Sign-in

    @Test func aSignInWithAValidIDTokenIsVerified() async throws {
        let verifier = verifier()
        let verified = try await verifier.verifySignIn(
            response(idToken: try token(keys.signing, kid: "k1", nonce: "n-1")), nonce: "n-1", now: now)
        #expect(verified.identity.subject == "alice")
        #expect(verified.identity.issuer == ProviderTestKeys.issuer)
        #expect(verified.identity.audience == [ProviderTestKeys.clientID])
        #expect(verified.accessToken.value == "AT-new")
        #expect(verified.refreshToken?.value == "RT-new")
        #expect(verified.accessTokenExpiresAt == now.addingTimeInterval(600))
        #expect(verified.rotation == 0)
        #expect(transport.requests.count == 1)
    }

    @Test func aSignInIsCheckedAgainstTheNonceSent() async throws {
        let verifier = verifier()
        let response = response(idToken: try token(keys.signing, kid: "k1", nonce: "n-1"))
        await expectRejection(.verificationFailed(.nonceMismatch)) { () async throws(SessionError) in
            try await verifier.verifySignIn(response, nonce: "n-2", now: now)
        }
    }

    @Test func aSignInWithoutIDTokenIsRejected() async throws {
        let verifier = verifier()
        let withoutIDToken = response(idToken: nil)
        await expectRejection(.verificationFailed(.malformed)) { () async throws(SessionError) in
            try await verifier.verifySignIn(withoutIDToken, nonce: "n", now: now)
        }
    }

    @Test func aSignInWithoutRefreshTokenGivesASessionThatCannotRefresh() async throws {
        let withoutRefreshToken = response(idToken: try token(keys.signing, kid: "k1", nonce: "n"), refreshToken: nil)
        let verified = try await verifier().verifySignIn(withoutRefreshToken, nonce: "n", now: now)
        #expect(verified.refreshToken == nil)
        #expect(!verified.canRefresh)
        #expect(verified.stored().refreshToken == nil)
    }

    @Test func anUnreachableKeySetIsAProviderError() async throws {
        transport.respond { _ in .failure(.timedOut) }
        let verifier = verifier()
        let response = response(idToken: try token(keys.signing, kid: "k1", nonce: "n"))
        await expectRejection(.provider(.transport(.timedOut))) { () async throws(SessionError) in
            try await verifier.verifySignIn(response, nonce: "n", now: now)
        }
    }

    // MARK: Unknown kid

    @Test func aKeyMissingFromTheCachedSetTriggersExactlyOneRefetchThenVerifies() async throws {
        let verifier = verifier()
        _ = try await verifier.verifySignIn(response(idToken: try token(keys.signing, kid: "k1", nonce: "n")), nonce: "n", now: now)
        #expect(transport.requests.count == 1)

        // The provider rotated to k2; the cached set (k1 only) is still within its time to live.
        serve([("k2", keys.rotated), ("k1", keys.signing)])
        wallClock.advance(by: 120)
        let rotated = try await verifier.verifyRefreshAsSession(
            response(idToken: try token(keys.rotated, kid: "k2")), previous: previous(), now: now)
        #expect(rotated.identity.subject == "alice")
        #expect(transport.requests.count == 2)
        #expect(transport.requests.allSatisfy { $0.url == configuration.jwksURI })

        // The refetched set is cached: the next k2 token needs no request.
        wallClock.advance(by: 120)
        _ = try await verifier.verifyRefreshAsSession(response(idToken: try token(keys.rotated, kid: "k2")), previous: previous(), now: now)
        #expect(transport.requests.count == 2)
    }

    @Test func aKidStillUnknownAfterTheRefetchIsRejected() async throws {
        let verifier = verifier()
        _ = try await verifier.verifySignIn(response(idToken: try token(keys.signing, kid: "k1", nonce: "n")), nonce: "n", now: now)
        wallClock.advance(by: 120)
        let forged = response(idToken: try token(keys.stranger, kid: "k9"))
        await expectRejection(.verificationFailed(.unknownKeyID)) { () async throws(SessionError) in
            try await verifier.verifyRefreshAsSession(forged, previous: previous(), now: now)
        }
        #expect(transport.requests.count == 2)
        // A stream of such tokens does not hammer the provider: the refetch is rate-limited, and a
        // kid that cannot be fetched yet is transient (nothing was judged), never a rejection.
        for _ in 0..<5 {
            await expectRejection(.provider(.invalidResponse("signing key not yet published"))) { () async throws(SessionError) in
                try await verifier.verifyRefreshAsSession(forged, previous: previous(), now: now)
            }
        }
        #expect(transport.requests.count == 2)
    }

    @Test func anUnknownKidInAFreshlyFetchedSetIsRejectedWithoutARefetch() async throws {
        let verifier = verifier()
        let response = response(idToken: try token(keys.rotated, kid: "k2", nonce: "n"))
        await expectRejection(.verificationFailed(.unknownKeyID)) { () async throws(SessionError) in
            try await verifier.verifySignIn(response, nonce: "n", now: now)
        }
        #expect(transport.requests.count == 1)
    }

    @Test func aKnownKidWithAForeignSignatureIsRejectedWithoutARefetch() async throws {
        let verifier = verifier()
        _ = try await verifier.verifySignIn(response(idToken: try token(keys.signing, kid: "k1", nonce: "n")), nonce: "n", now: now)
        wallClock.advance(by: 120)
        let forged = response(idToken: try token(keys.stranger, kid: "k1"))
        await expectRejection(.verificationFailed(.badSignature)) { () async throws(SessionError) in
            try await verifier.verifyRefreshAsSession(forged, previous: previous(), now: now)
        }
        #expect(transport.requests.count == 1)
    }

    @Test func aFailedRefetchIsAProviderError() async throws {
        let verifier = verifier()
        _ = try await verifier.verifySignIn(response(idToken: try token(keys.signing, kid: "k1", nonce: "n")), nonce: "n", now: now)
        wallClock.advance(by: 120)
        transport.respond { _ in .success(HTTPResponse(status: 503)) }
        let rotated = response(idToken: try token(keys.rotated, kid: "k2"))
        do {
            _ = try await verifier.verifyRefreshAsSession(rotated, previous: previous(), now: now)
            Issue.record("verified without keys")
        } catch {
            guard let providerError = error.providerError else {
                Issue.record("expected a provider error, got \(error)")
                return
            }
            #expect(providerError.status == 503 && providerError.isTransient)
        }
    }

    // MARK: Refresh

    @Test func aRefreshWithTheSameIdentityIsVerified() async throws {
        let verified = try await verifier().verifyRefreshAsSession(
            response(idToken: try token(keys.signing, kid: "k1")), previous: previous(), now: now)
        #expect(verified.refreshToken?.value == "RT-new")
        #expect(verified.accessToken.value == "AT-new")
        #expect(verified.idToken?.value != "old.id.token")
        #expect(verified.rotation == 5)
        #expect(verified.accessTokenExpiresAt == now.addingTimeInterval(600))
    }

    @Test func aRefreshForAnotherSubjectIsRejected() async throws {
        let response = response(idToken: try token(keys.signing, kid: "k1", subject: "mallory"))
        await expectRejection(.verificationFailed(.subjectMismatch)) { () async throws(SessionError) in
            try await verifier().verifyRefreshAsSession(response, previous: previous(), now: now)
        }
    }

    @Test func aRefreshForAnotherAudienceIsRejected() async throws {
        let widened = response(idToken: try token(keys.signing, kid: "k1", audience: [ProviderTestKeys.clientID, "other-api"]))
        await expectRejection(.verificationFailed(.audienceMismatch)) { () async throws(SessionError) in
            try await verifier().verifyRefreshAsSession(widened, previous: previous(), now: now)
        }
        let narrowed = response(idToken: try token(keys.signing, kid: "k1"))
        await expectRejection(.verificationFailed(.audienceMismatch)) { () async throws(SessionError) in
            try await verifier().verifyRefreshAsSession(
                narrowed, previous: previous(audience: [ProviderTestKeys.clientID, "other-api"]), now: now)
        }
    }

    @Test func theSameAudienceInAnotherOrderIsAccepted() async throws {
        let response = response(idToken: try token(keys.signing, kid: "k1", audience: ["other-api", ProviderTestKeys.clientID]))
        let verified = try await verifier().verifyRefreshAsSession(
            response, previous: previous(audience: [ProviderTestKeys.clientID, "other-api"]), now: now)
        #expect(Set(verified.identity.audience) == [ProviderTestKeys.clientID, "other-api"])
    }

    @Test func aRefreshFromAnotherIssuerIsRejected() async throws {
        let response = response(idToken: try token(keys.signing, kid: "k1"))
        await expectRejection(.verificationFailed(.issuerMismatch)) { () async throws(SessionError) in
            try await verifier().verifyRefreshAsSession(response, previous: previous(issuer: "https://old-id.example.com"), now: now)
        }
    }

    @Test func aRefreshWithoutIDTokenIsRejectedWithItsOwnCodeWhenRequired() async throws {
        let response = response(idToken: nil)
        await expectRejection(.verificationFailed(.missingIDToken)) { () async throws(SessionError) in
            try await verifier().verifyRefreshAsSession(response, previous: previous(), now: now)
        }
        #expect(transport.requests.isEmpty)
    }

    @Test func aRefreshWithoutIDTokenKeepsThePreviousIdentityWhenAllowed() async throws {
        let previous = previous()
        let verified = try await verifier(requireIDTokenOnRefresh: false).verifyRefreshAsSession(
            response(idToken: nil), previous: previous, now: now)
        #expect(verified.identity == SessionIdentity(stored: previous))
        #expect(verified.identity.subject == "alice")
        #expect(verified.idToken?.value == "old.id.token")
        #expect(verified.accessToken.value == "AT-new")
        #expect(verified.refreshToken?.value == "RT-new")
        #expect(verified.rotation == 5)
        #expect(transport.requests.isEmpty)
    }

    @Test func aRefreshWithoutRefreshTokenKeepsThePreviousOne() async throws {
        let verified = try await verifier().verifyRefreshAsSession(
            response(idToken: try token(keys.signing, kid: "k1"), refreshToken: nil), previous: previous(), now: now)
        #expect(verified.refreshToken?.value == "RT-old")
        let relaxed = try await verifier(requireIDTokenOnRefresh: false).verifyRefreshAsSession(
            response(idToken: nil, refreshToken: nil), previous: previous(), now: now)
        #expect(relaxed.refreshToken?.value == "RT-old")
    }

    @Test func withoutExpiresInTheDefaultLifetimeApplies() async throws {
        let verified = try await verifier().verifyRefreshAsSession(
            response(idToken: try token(keys.signing, kid: "k1"), expiresIn: nil), previous: previous(), now: now)
        #expect(verified.accessTokenExpiresAt == now.addingTimeInterval(300))
    }
}

extension TokenVerifier {
    /// ``verifyRefresh(_:previous:now:)`` with its failures as the session reports them.
    func verifyRefreshAsSession(_ response: TokenResponse, previous: StoredSession, now: Date) async throws(SessionError) -> VerifiedTokens
    {
        do {
            return try await verifyRefresh(response, previous: previous, now: now)
        } catch {
            switch error {
            case .rejected(let failure): throw .verificationFailed(failure)
            case .keysUnavailable(let failure): throw .provider(failure)
            }
        }
    }
}
