import Foundation
import SessionKitCore
import SessionKitJOSE
import SessionKitTesting
import Testing

@testable import SessionKit

/// A platform key backend in memory: keys can be made to fail per placement, and vanish (a reset
/// Keychain, a backup restored on another device).
final class InMemoryDPoPKeyBackend: DPoPPlatformKeyBackend {
    private let keys = Locked<[String: P256PrivateKey]>([:])
    let hasSecureEnclave: Bool
    let failing: Set<StoredDPoPKey.Placement>

    init(hasSecureEnclave: Bool = true, failing: Set<StoredDPoPKey.Placement> = []) {
        self.hasSecureEnclave = hasSecureEnclave
        self.failing = failing
    }

    var count: Int { keys.withLock { $0.count } }

    func makeKey(in placement: StoredDPoPKey.Placement, tag: String) throws(DPoPKeyStoreError) -> any DPoPSigningKey {
        guard !failing.contains(placement) else { throw DPoPKeyStoreError("\(placement) refused") }
        guard let key = try? P256PrivateKey.generate() else { throw DPoPKeyStoreError("no key") }
        keys.withLock { $0["\(placement)/\(tag)"] = key }
        return key
    }

    func findKey(in placement: StoredDPoPKey.Placement, tag: String) throws(DPoPKeyStoreError) -> (any DPoPSigningKey)? {
        keys.withLock { $0["\(placement)/\(tag)"] }
    }

    func deleteKey(in placement: StoredDPoPKey.Placement, tag: String) {
        _ = keys.withLock { $0.removeValue(forKey: "\(placement)/\(tag)") }
    }

    func removeAll() {
        keys.withLock { $0 = [:] }
    }
}

/// A key store that records every key it makes and deletes, around another store.
final class RecordingDPoPKeyStore: DPoPKeyStore {
    private let base: any DPoPKeyStore
    private let log = Locked<(made: [String], deleted: [String])>(([], []))

    init(_ base: any DPoPKeyStore) {
        self.base = base
    }

    /// The thumbprints of the keys made, in order.
    var made: [String] { log.withLock { $0.made } }
    /// The thumbprints of the keys deleted, in order.
    var deleted: [String] { log.withLock { $0.deleted } }

    func makeKey() throws(DPoPKeyStoreError) -> (key: any DPoPSigningKey, stored: StoredDPoPKey) {
        let made = try base.makeKey()
        log.withLock { $0.made.append(made.stored.thumbprint) }
        return made
    }

    func key(for stored: StoredDPoPKey) throws(DPoPKeyStoreError) -> (any DPoPSigningKey)? {
        try base.key(for: stored)
    }

    func deleteKey(_ stored: StoredDPoPKey) async {
        log.withLock { $0.deleted.append(stored.thumbprint) }
        await base.deleteKey(stored)
    }
}

/// The session owns its DPoP key: made at sign-in, kept with the record, found at relaunch by its
/// thumbprint, deleted with the session; and DPoP never costs a session silently.
@Suite("Session-owned DPoP keys", .timeLimit(.minutes(1)))
struct SessionDPoPKeyTests {
    private static func environment(
        policy: DPoPPolicy = .required, dpop: SimulatedProviderDPoP? = SimulatedProviderDPoP(),
        keyStore: (any DPoPKeyStore)? = nil, advertises: Bool = true
    ) throws -> SimulatedSessionEnvironment {
        var provider = SimulatedProviderConfiguration()
        provider.dpop = dpop
        return try SimulatedSessionEnvironment(provider: provider) {
            $0.dpop = policy
            if advertises { $0.provider.dpopSigningAlgorithms = ["ES256"] }
            if let keyStore { $0.dpopKeyStore = keyStore }
        }
    }

    private static func signIn(_ env: SimulatedSessionEnvironment, _ subject: String = "alice") async throws {
        env.presenter.enqueue(.approve(subject: subject))
        _ = try await env.session.signIn()
    }

    private static func failure(_ body: () async throws(SessionError) -> Void) async -> SessionError? {
        do {
            try await body()
            return nil
        } catch {
            return error
        }
    }

    @Test("sign-in makes one key, binds the code and tokens to it, keeps it in the record as schema 2; a relaunch refreshes with it")
    func keyKeptWithTheRecord() async throws {
        let env = try Self.environment()
        try await Self.signIn(env)
        let stored = try #require(env.store.record.session?.dpopKey)
        #expect(stored.placement == .record)
        #expect(stored.tokensAreBound)
        #expect(stored.privateScalar != nil)
        let url = try #require(env.presenter.presentedRequests.first?.authorizationURL)
        let jkt = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "dpop_jkt" }?.value
        #expect(jkt == stored.thumbprint)
        #expect(env.session.dpop.holder.thumbprint == stored.thumbprint)
        let bytes = try StoredPayloadCodec.seal(env.store.record)
        #expect(Array(bytes[12..<16]) == [0, 0, 0, 2])
        #expect(try StoredPayloadCodec.openRecord(bytes) == env.store.record)

        let relaunched = await env.relaunch()
        #expect(try await relaunched.restore() == .active)
        #expect(relaunched.dpop.holder.thumbprint == stored.thumbprint)
        // The provider accepts the bound refresh token only with a proof of its key.
        _ = try await relaunched.refresh()
        #expect(relaunched.stage == .active)
        #expect(env.store.record.session?.dpopKey == stored)
        #expect(!String(describing: stored).contains(stored.privateScalar!.value))
        await relaunched.shutdown()
        try await env.finish()
    }

    @Test("a record without a DPoP key is still written as schema 1")
    func recordsWithoutKeysStayVersionOne() throws {
        let record = CredentialRecord(session: StoredSession(refreshToken: Secret("r"), issuer: "i", subject: "s", audience: ["a"]))
        #expect(Array(try StoredPayloadCodec.seal(record)[12..<16]) == [0, 0, 0, 1])
    }

    @Test("a sign-out deletes the key with the session; a new sign-in makes a new key")
    func signOutDeletesTheKey() async throws {
        let backend = InMemoryDPoPKeyBackend()
        let env = try Self.environment(keyStore: PlatformDPoPKeyStore(backend: backend))
        try await Self.signIn(env)
        let first = try #require(env.store.record.session?.dpopKey)
        #expect(first.placement == .secureEnclave)
        #expect(first.privateScalar == nil)
        #expect(backend.count == 1)
        try await env.session.signOut()
        #expect(env.store.record.session == nil)
        #expect(backend.count == 0)
        #expect(env.session.dpop.holder.signer == nil)
        try await Self.signIn(env)
        #expect(env.store.record.session?.dpopKey?.thumbprint != first.thumbprint)
        try await env.finish()
    }

    @Test("a queued revocation of an ended session's token carries no proof of the next session's key")
    func queuedRevocationCarriesNoOtherKeysProof() async throws {
        let env = try Self.environment()
        let alice = try await env.signIn(as: "alice")
        let aliceKey = try #require(env.store.record.session?.dpopKey)
        env.provider.script(.serverError(status: 503), on: .revocation, times: 2)
        let session = env.session
        let signOut = Task { await SessionCallResult { () async throws(SessionError) in try await session.signOut() } }
        await env.clock.waitForSleepers(count: 1)
        // Bob signs in while Alice's sign-out still waits: her token is queued, her key is gone.
        let bob = try await env.signIn(as: "bob")
        #expect(await signOut.value.error == nil)
        #expect(env.store.record.pendingRevocations == [alice.refreshToken])
        #expect(env.store.record.session?.dpopKey?.thumbprint != aliceKey.thumbprint)

        // The provider refuses a revocation whose proof is by another key than the token's; the
        // queue presents none, so Alice's grant is revoked.
        await env.advanceToNextSleeper()
        await env.waitUntil("the queue drained") { env.store.record.pendingRevocations.isEmpty }
        #expect(!env.provider.isRefreshTokenActive(alice.refreshToken))
        #expect(env.provider.isRefreshTokenActive(bob.refreshToken))
        #expect(!env.provider.requestLog.contains { $0.endpoint == .revocation && $0.errorCode == "invalid_dpop_proof" })
        await env.waitUntil { env.session.workInFlight.isEmpty }
        try await env.finish()
    }

    @Test("account deletion deletes the key with the session")
    func deletionDeletesTheKey() async throws {
        let backend = InMemoryDPoPKeyBackend()
        let env = try Self.environment(keyStore: PlatformDPoPKeyStore(backend: backend))
        try await Self.signIn(env)
        #expect(backend.count == 1)
        try await env.session.deleteAccount()
        #expect(env.store.record.session == nil)
        #expect(backend.count == 0)
        // The refresh token is revoked in the background after the deletion.
        await env.waitUntil { env.session.workInFlight.isEmpty }
        try await env.finish()
    }

    @Test("a guest session gets its own key; the sign-in that replaces the guest replaces its key")
    func guestKey() async throws {
        let backend = InMemoryDPoPKeyBackend()
        let env = try Self.environment(keyStore: PlatformDPoPKeyStore(backend: backend))
        _ = try await env.session.startGuestSession()
        let guest = try #require(env.store.record.session?.dpopKey)
        #expect(env.session.dpop.holder.thumbprint == guest.thumbprint)
        #expect(backend.count == 1)
        try await Self.signIn(env)
        let signedIn = try #require(env.store.record.session?.dpopKey)
        #expect(signedIn.thumbprint != guest.thumbprint)
        #expect(env.session.dpop.holder.thumbprint == signedIn.thumbprint)
        #expect(backend.count == 1)
        try await env.finish()
    }

    @Test("a device sign-in binds its tokens to a key of its own")
    func deviceSignInKey() async throws {
        let env = try Self.environment(policy: .whenSupported)
        env.presenter.enqueue(.enterDeviceCode(subject: "alice"))
        let session = env.session
        let task = Task { await SessionCallResult { () async throws(SessionError) in try await session.signInWithDeviceCode() } }
        await env.waitUntil("the code is shown") { env.presenter.presentedDeviceCodes.count == 1 }
        await env.clock.waitForSleepers(count: 1)
        await env.advanceToNextSleeper()
        _ = try #require(await task.value.value)
        let stored = try #require(env.store.record.session?.dpopKey)
        #expect(env.session.dpop.holder.thumbprint == stored.thumbprint)
        try await env.finish()
    }

    @Test("a key gone at relaunch is a typed outcome: the record is kept, nothing is sent, the account is the next hint")
    func keyGoneAtRestore() async throws {
        let backend = InMemoryDPoPKeyBackend()
        let env = try Self.environment(keyStore: PlatformDPoPKeyStore(backend: backend))
        try await Self.signIn(env)
        let record = env.store.record
        let requests = env.provider.requestLog.count
        backend.removeAll()

        let relaunched = await env.relaunch()
        let error = await Self.failure { () async throws(SessionError) in _ = try await relaunched.restore() }
        let loss = try #require(error?.dpopKeyLoss)
        #expect(loss.reason == .missing)
        #expect(loss.subject == "alice")
        #expect(error?.requiresSignIn == true)
        #expect(relaunched.stage == .signedOut)
        #expect(relaunched.dpop.holder.signer == nil)
        #expect(env.store.record == record)
        #expect(env.provider.requestLog.count == requests)

        // The next sign-in replaces the record and queues the stranded refresh token for revocation.
        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await relaunched.signIn(options: loss.signInOptions)
        #expect(env.store.record.session?.dpopKey?.thumbprint != record.session?.dpopKey?.thumbprint)
        #expect(relaunched.dpop.holder.thumbprint == env.store.record.session?.dpopKey?.thumbprint)
        await relaunched.shutdown()
    }

    @Test("a key gone while the session runs ends the refresh as a restore would: typed, nothing sent, the record kept")
    func keyGoneMidSession() async throws {
        let backend = InMemoryDPoPKeyBackend()
        let env = try Self.environment(keyStore: PlatformDPoPKeyStore(backend: backend))
        await env.startRecording()
        try await Self.signIn(env)
        let record = env.store.record
        let requests = env.provider.requestLog.count
        // A reset Keychain: the key is gone from the store while the app runs.
        backend.removeAll()

        let error = await Self.failure { () async throws(SessionError) in _ = try await env.session.refresh() }
        let loss = try #require(error?.dpopKeyLoss)
        #expect(error?.code == .dpopKeyUnavailable)
        #expect(loss.reason == .missing)
        #expect(loss.subject == "alice")
        #expect(loss.signInOptions.loginHint == loss.loginHint)
        // The session has ended, and the error says so: no token without the key.
        #expect(error?.requiresSignIn == true)
        #expect(env.session.stage == .signedOut)
        #expect(env.session.dpop.holder.signer == nil)
        // Nothing sent, nothing wiped: the record waits for the next sign-in, as after a restore.
        #expect(env.provider.requestLog.count == requests)
        #expect(env.store.record == record)
        let reason = try #require(
            env.events.compactMap { event -> TransitionReason? in
                guard case .transition(let transition) = event, transition.to == .signedOut else { return nil }
                return transition.reason
            }.last)
        #expect(reason.code == .dpopKeyUnavailable)

        env.presenter.enqueue(.approve(subject: "alice"))
        _ = try await env.session.signIn(options: loss.signInOptions)
        #expect(env.store.record.session?.dpopKey?.thumbprint != record.session?.dpopKey?.thumbprint)
        #expect(env.session.stage == .active)
        try await env.finish()
    }

    @Test("a key made for a sign-in that ends before the code exchange is deleted from the key store")
    func keyOfACancelledSignInIsDeleted() async throws {
        let backend = InMemoryDPoPKeyBackend()
        let keys = RecordingDPoPKeyStore(PlatformDPoPKeyStore(backend: backend))
        let env = try Self.environment(keyStore: keys)
        for behaviour in [ScriptedPresenter.Behaviour.cancel, .deny()] {
            env.presenter.enqueue(behaviour)
            let error = await Self.failure { () async throws(SessionError) in _ = try await env.session.signIn() }
            #expect(error != nil)
            #expect(env.session.stage == .signedOut)
        }
        #expect(keys.made.count == 2)
        #expect(keys.deleted == keys.made)
        #expect(backend.count == 0)
        #expect(env.provider.requestCount(grantType: "authorization_code") == 0)

        // A sign-in that completes keeps its key; only that one is left.
        try await Self.signIn(env)
        #expect(keys.made.count == 3)
        #expect(keys.deleted.count == 2)
        #expect(backend.count == 1)
        #expect(env.store.record.session?.dpopKey?.thumbprint == keys.made.last)
        try await env.finish()
    }

    @Test("a key whose thumbprint does not match the record is never used")
    func thumbprintMismatchAtRestore() async throws {
        let env = try Self.environment()
        try await Self.signIn(env)
        var record = env.store.record
        let other = try RecordDPoPKeyStore().makeKey().stored
        // A key that is not the one the tokens are bound to, under the bound key's thumbprint.
        record.session?.dpopKey?.privateScalar = other.privateScalar
        record.session?.dpopKey?.x = other.x
        record.session?.dpopKey?.y = other.y
        env.store.replaceRecord(record)

        let relaunched = await env.relaunch()
        let error = await Self.failure { () async throws(SessionError) in _ = try await relaunched.restore() }
        #expect(error?.dpopKeyLoss?.reason == .thumbprintMismatch)
        #expect(error?.code == .dpopKeyUnavailable)
        #expect(relaunched.dpop.holder.signer == nil)
        #expect(env.store.record == record)
        await relaunched.shutdown()
    }

    @Test("a record-held key is built once for a run of refreshes; a record whose key changed is checked again and refused")
    func recordKeyIsReusedUntilTheRecordChanges() async throws {
        let env = try Self.environment()
        try await Self.signIn(env)
        _ = try await env.session.refresh()
        let stored = try #require(env.store.record.session?.dpopKey)
        #expect(stored.placement == .record)
        let built = try #require(env.session.dpop.lastRecordKey.key(for: stored))
        #expect(built.publicKey.thumbprint == stored.thumbprint)
        _ = try await env.session.refresh()
        #expect(env.session.dpop.lastRecordKey.key(for: stored)?.publicKey.thumbprint == stored.thumbprint)

        // Another key under the bound key's thumbprint, written while the session runs.
        var record = env.store.record
        let other = try RecordDPoPKeyStore().makeKey().stored
        record.session?.dpopKey?.privateScalar = other.privateScalar
        record.session?.dpopKey?.x = other.x
        record.session?.dpopKey?.y = other.y
        env.store.replaceRecord(record)
        let requests = env.provider.requestLog.count
        let error = await Self.failure { () async throws(SessionError) in _ = try await env.session.refresh() }
        #expect(error?.dpopKeyLoss?.reason == .thumbprintMismatch)
        #expect(env.provider.requestLog.count == requests)
        #expect(env.session.dpop.holder.signer == nil)
        #expect(env.session.dpop.lastRecordKey.key(for: stored) == nil)
        try await env.finish()
    }

    @Test("a refresh token the provider spent on the nonce refusal is said as such, wiped, never retried")
    func nonceRetrySpentTheRefreshToken() async throws {
        let env = try Self.environment(dpop: SimulatedProviderDPoP(spendsRefreshTokenOnNonceRefusal: true))
        await env.startRecording()
        try await Self.signIn(env)
        env.provider.rotateDPoPNonce()
        let error = await Self.failure { () async throws(SessionError) in _ = try await env.session.refresh() }
        #expect(error == .refreshTokenRejected)
        // The refused request and its one retry: no loop.
        #expect(env.provider.requestCount(grantType: "refresh_token") == 2)
        #expect(env.session.stage == .signedOut)
        #expect(env.store.record.session == nil)
        let reason = try #require(
            env.events.compactMap { event -> TransitionReason? in
                guard case .transition(let transition) = event, transition.to == .signedOut else { return nil }
                return transition.reason
            }.last)
        #expect(reason.error == .provider(.dpop(DPoPFailure(.refreshTokenSpentByNonceRetry))))
        try await env.finish()
    }

    @Test("a provider that answers a refresh with Bearer after DPoP is refused as a downgrade, and the session is kept")
    func downgradeMidSession() async throws {
        let env = try Self.environment(policy: .whenSupported)
        try await Self.signIn(env)
        let token = env.store.record.session?.refreshToken
        env.provider.stopBindingTokens()
        let error = await Self.failure { () async throws(SessionError) in _ = try await env.session.refresh() }
        #expect(error == .provider(.dpop(DPoPFailure(.downgraded))))
        #expect(error?.requiresSignIn == false)
        #expect(env.session.stage == .active)
        #expect(env.store.record.session?.refreshToken == token)
        #expect(env.clock.sleeperCount == 0)
        try await env.finish()
    }

    @Test("required: a provider that answers the sign-in with Bearer is an error, and the sign-in's key is not kept")
    func bearerWhereRequired() async throws {
        let backend = InMemoryDPoPKeyBackend()
        let env = try Self.environment(policy: .required, dpop: nil, keyStore: PlatformDPoPKeyStore(backend: backend))
        env.presenter.enqueue(.approve(subject: "alice"))
        let error = await Self.failure { () async throws(SessionError) in _ = try await env.session.signIn() }
        #expect(error == .provider(.dpop(DPoPFailure(.bearerWhereRequired))))
        #expect(env.store.record.session == nil)
        #expect(backend.count == 0)
        try await env.finish()
    }

    @Test("whenSupported: no key where the provider does not list ES256; off: no key at all")
    func policyDecides() async throws {
        for (policy, advertises) in [(DPoPPolicy.whenSupported, false), (.off, true)] {
            let env = try Self.environment(policy: policy, dpop: nil, advertises: advertises)
            try await Self.signIn(env)
            #expect(env.store.record.session?.refreshToken != nil)
            #expect(env.store.record.session?.dpopKey == nil)
            let url = try #require(env.presenter.presentedRequests.first?.authorizationURL)
            #expect(!url.absoluteString.contains("dpop_jkt"))
            try await env.finish()
        }
    }

    @Test("discovery reads dpop_signing_alg_values_supported; whenSupported then binds the session")
    func discoveredSupport() async throws {
        var configuration = SimulatedProviderConfiguration()
        configuration.dpop = SimulatedProviderDPoP()
        let probe = try SimulatedSessionEnvironment(provider: configuration)
        let base = probe.configuration.provider
        let found = try await ProviderConfiguration.discover(
            issuer: base.issuer, clientID: base.clientID, redirectURI: base.redirectURI, scopes: base.scopes, transport: probe.provider)
        #expect(found.dpopSigningAlgorithms == ["ES256"])
        let env = try Self.environment(policy: .whenSupported, advertises: false)
        #expect(env.configuration.provider.dpopSigningAlgorithms == nil)
        let bound = try SimulatedSessionEnvironment(provider: configuration) {
            $0.dpop = .whenSupported
            $0.provider.dpopSigningAlgorithms = found.dpopSigningAlgorithms
        }
        try await Self.signIn(bound)
        #expect(bound.store.record.session?.dpopKey?.tokensAreBound == true)
        try await bound.finish()
    }

    @Test("the policy reads discovery's dpop_signing_alg_values_supported")
    func policyRequirement() throws {
        var provider = try SimulatedProvider(
            configuration: SimulatedProviderConfiguration(), clock: TestClock(), now: { Date() },
            signingKeys: SimulatedProviderKeys.shared(count: 1)
        ).providerConfiguration()
        #expect(DPoPPolicy.off.requirement(for: provider) == nil)
        #expect(DPoPPolicy.required.requirement(for: provider) == .required)
        #expect(DPoPPolicy.whenSupported.requirement(for: provider) == nil)
        provider.dpopSigningAlgorithms = ["RS256"]
        #expect(DPoPPolicy.whenSupported.requirement(for: provider) == nil)
        provider.dpopSigningAlgorithms = ["PS256", "ES256"]
        #expect(DPoPPolicy.whenSupported.requirement(for: provider) == .whenIssued)
    }
}

/// Where ``PlatformDPoPKeyStore`` puts a key, decided on every platform.
@Suite("Platform DPoP key store decisions")
struct PlatformDPoPKeyStoreTests {
    @Test("the Secure Enclave first, then the Keychain, then the record when allowed")
    func placements() throws {
        #expect(PlatformDPoPKeyStore(backend: InMemoryDPoPKeyBackend()).placements == [.secureEnclave, .keychain, .record])
        #expect(PlatformDPoPKeyStore(backend: InMemoryDPoPKeyBackend(hasSecureEnclave: false)).placements == [.keychain, .record])
        #expect(
            PlatformDPoPKeyStore(backend: InMemoryDPoPKeyBackend(), prefersSecureEnclave: false, allowsRecordFallback: false).placements
                == [.keychain])
    }

    @Test("an Enclave that refuses falls back to the Keychain; both refusing fall back to the record, or fail")
    func fallbacks() throws {
        let enclaveRefuses = PlatformDPoPKeyStore(backend: InMemoryDPoPKeyBackend(failing: [.secureEnclave]))
        #expect(try enclaveRefuses.makeKey().stored.placement == .keychain)
        let bothRefuse = PlatformDPoPKeyStore(backend: InMemoryDPoPKeyBackend(failing: [.secureEnclave, .keychain]))
        let fallback = try bothRefuse.makeKey()
        #expect(fallback.stored.placement == .record)
        #expect(try bothRefuse.key(for: fallback.stored)?.publicKey.thumbprint == fallback.stored.thumbprint)
        let strict = PlatformDPoPKeyStore(
            backend: InMemoryDPoPKeyBackend(failing: [.secureEnclave, .keychain]), allowsRecordFallback: false)
        #expect(throws: DPoPKeyStoreError.self) { try strict.makeKey() }
    }

    @Test("a platform key is found by its tag, is gone once deleted, and a later version's placement is never claimed")
    func findAndDelete() async throws {
        let backend = InMemoryDPoPKeyBackend()
        let store = PlatformDPoPKeyStore(backend: backend)
        let (key, stored) = try store.makeKey()
        #expect(stored.reference != nil)
        #expect(try store.key(for: stored)?.publicKey.thumbprint == key.publicKey.thumbprint)
        var unknown = stored
        unknown.placement = StoredDPoPKey.Placement(rawValue: "hardware-token")
        #expect(try store.key(for: unknown) == nil)
        await store.deleteKey(stored)
        #expect(try store.key(for: stored) == nil)
        #expect(!String(describing: stored).contains(stored.reference!.value))
    }
}
