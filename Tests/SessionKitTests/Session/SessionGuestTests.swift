import Foundation
import SessionKit
import SessionKitTesting
import Synchronization
import Testing

/// A guest session through `Session` on the test kit: started, renewed, recovered, restored,
/// promoted and ended, with the provider's request log and the store as the evidence.
@Suite("Guest sessions", .timeLimit(.minutes(1)))
struct SessionGuestTests {
    static let invalidDeviceSecret = SimulatedProviderFault.rawAnswer(status: 401, body: #"{"error":"invalid_device_secret"}"#)

    static func bootstraps(_ h: SimulatedSessionEnvironment) -> [SimulatedProviderLogEntry] {
        h.provider.requestLog.filter { $0.endpoint == .anonymousBootstrap }
    }

    /// Starts a guest session and returns the device id it was bootstrapped with.
    @discardableResult
    static func startGuest(_ h: SimulatedSessionEnvironment) async throws -> String {
        let identity = try await h.session.startGuestSession()
        #expect(identity.isAnonymous)
        return try #require(h.store.guest?.deviceID)
    }

    // MARK: - Starting

    @Test func startingLeadsToAnActiveAnonymousSessionWithoutARefreshToken() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        let identity = try await h.session.startGuestSession()
        #expect(h.session.stage == .active)
        #expect(identity.isAnonymous)
        #expect(identity.source == .deviceBootstrap)
        let stored = try #require(h.store.record.session)
        #expect(stored.isGuest == true)
        #expect(stored.refreshToken == nil)
        #expect(stored.accessToken != nil)
        // The secret lives in the guest credential's own slot, issued once.
        #expect(h.store.guest?.deviceSecret != nil)
        #expect(Self.bootstraps(h).map(\.status) == [200])
        #expect(h.transitions == ["signedOut→verifying", "verifying→active"])
        #expect(try await h.session.validAccessToken().secret == stored.accessToken)
        // Handing out the key asked the provider nothing more.
        #expect(Self.bootstraps(h).count == 1)
    }

    @Test func concurrentStartsShareOneBootstrap() async throws {
        let h = try SimulatedSessionEnvironment()
        h.provider.script(.slow(.seconds(2)), on: .anonymousBootstrap)
        let session = h.session
        let callers = 8
        let identities = try await withThrowingTaskGroup(of: SessionIdentity.self) { group in
            for _ in 0..<callers { group.addTask { try await session.startGuestSession() } }
            await h.advanceToNextSleeper()
            var all: [SessionIdentity] = []
            for try await identity in group { all.append(identity) }
            return all
        }
        #expect(identities.count == callers)
        #expect(Set(identities.map(\.subject)).count == 1)
        #expect(Self.bootstraps(h).count == 1)
        #expect(h.provider.guestDeviceCount == 1)
    }

    @Test func aStoreWithoutAGuestSlotIsUnsupported() async throws {
        let clock = TestClock()
        let provider = try SimulatedProvider(
            configuration: SimulatedProviderConfiguration(), clock: clock, now: { clock.wallClockNow() },
            signingKeys: try SimulatedProviderKeys.shared(count: 1))
        let session = Session(
            configuration: SessionConfiguration(provider: try provider.providerConfiguration()), transport: provider,
            store: RecordOnlyStore(),
            presenter: ScriptedPresenter(authorize: { (url, subject, decision) throws(SimulatedProviderAuthorizationError) -> URL in
                try provider.authorize(url, subject: subject, decision: decision)
            }), deviceKeys: .none, clock: clock, wallClock: { clock.wallClockNow() })
        await #expect(throws: SessionError.unsupported(.guestCredential)) {
            try await session.startGuestSession()
        }
        #expect(session.stage == .signedOut)
        #expect(provider.requestCount(for: .anonymousBootstrap) == 0)
    }

    // MARK: - Renewing the key

    @Test func everyCallerOfADueKeyGetsTheOneRenewal() async throws {
        let h = try SimulatedSessionEnvironment()
        try await Self.startGuest(h)
        let first = try #require(h.store.record.session?.accessToken)
        // Inside the lead time (60 s before the key's hour is up).
        h.clock.advance(by: .seconds(3550))
        h.provider.script(.slow(.seconds(2)), on: .anonymousBootstrap)
        let session = h.session
        let callers = 25
        let tokens = try await withThrowingTaskGroup(of: AccessToken.self) { group in
            for _ in 0..<callers { group.addTask { try await session.validAccessToken() } }
            // Within the lead time, joiners are handed the current key unless they must wait.
            await h.advanceToNextSleeper()
            var all: [AccessToken] = []
            for try await token in group { all.append(token) }
            return all
        }
        #expect(tokens.count == callers)
        #expect(Self.bootstraps(h).count == 2, "one bootstrap to start, one to renew for every caller")
        let renewed = try #require(h.store.record.session?.accessToken)
        #expect(renewed != first)
        #expect(tokens.allSatisfy { $0.secret == renewed })
        #expect(h.session.stage == .active)
        // The renewal presented the stored secret: the same anonymous user.
        #expect(h.provider.guestDeviceCount == 1)
        #expect(h.session.identity?.isAnonymous == true)
    }

    @Test func aRefusedSecretIsDroppedAndOneFreshBootstrapMakesANewAnonymousUser() async throws {
        let h = try SimulatedSessionEnvironment()
        let device = try await Self.startGuest(h)
        let firstUser = try #require(h.session.identity?.subject)
        await h.startRecording()
        #expect(h.provider.invalidateGuestDeviceSecret(deviceID: device))
        h.clock.advance(by: .seconds(3550))
        _ = try await h.session.refresh()
        #expect(Self.bootstraps(h).map(\.status) == [200, 401, 200])
        let secondUser = try #require(h.session.identity?.subject)
        #expect(secondUser != firstUser)
        #expect(h.events.contains(.guestStartedOver(previousSubject: firstUser, subject: secondUser)))
        #expect(h.steps.contains { "\($0)".contains("a new anonymous user") })
        #expect(h.store.guest?.deviceSecret != nil)
        #expect(h.session.stage == .active)
    }

    @Test func theSecretIsIssuedOnceAndPresentedAtEveryRenewal() async throws {
        let h = try SimulatedSessionEnvironment()
        let device = try await Self.startGuest(h)
        let secret = try #require(h.store.guest?.deviceSecret)
        let user = h.provider.guestUserID(deviceID: device)
        for _ in 0..<3 {
            h.clock.advance(by: .seconds(3550))
            _ = try await h.session.refresh()
        }
        #expect(Self.bootstraps(h).map(\.status) == [200, 200, 200, 200])
        #expect(h.issued.deviceSecrets.count == 1, "only the first answer carries a secret")
        #expect(h.store.guest?.deviceSecret == secret)
        #expect(h.provider.guestUserID(deviceID: device) == user, "the same anonymous user throughout")
    }

    @Test func aServerSideResetEndsTheOldKeysAndTheRenewalStartsANewAnonymousUser() async throws {
        let h = try SimulatedSessionEnvironment()
        let device = try await Self.startGuest(h)
        let firstUser = try #require(h.session.identity?.subject)
        let oldKey = try #require(h.store.record.session?.accessToken)
        #expect(h.provider.forgetGuestDevice(deviceID: device))
        #expect(!h.provider.isAccessTokenActive(oldKey))
        // The app's API refused the old key: it asks for a newer one.
        let renewed = try await h.session.refresh()
        #expect(Self.bootstraps(h).map(\.status) == [200, 401, 200])
        #expect(h.provider.isAccessTokenActive(renewed.secret))
        #expect(h.session.identity?.subject != firstUser)
        #expect(h.store.guest?.deviceID == device, "the device keeps its id; only the secret was replaced")
    }

    @Test func aSecondRefusalEndsTheGuestSessionWithATypedError() async throws {
        let h = try SimulatedSessionEnvironment()
        try await Self.startGuest(h)
        h.clock.advance(by: .seconds(3600))
        h.provider.script(Self.invalidDeviceSecret, on: .anonymousBootstrap, times: 2)
        let error = try #require(await SessionCallResult { () async throws(SessionError) in try await h.session.validAccessToken() }.error)
        #expect(error == .guestBootstrapFailed(.invalidDeviceSecret))
        #expect(error.requiresSignIn)
        #expect(h.session.stage == .signedOut)
        // Exactly one fresh bootstrap after the refusal, not a third request.
        #expect(Self.bootstraps(h).map(\.status) == [200, 401, 401])
        #expect(h.store.guest?.deviceSecret == nil)
    }

    @Test func aRenewalThatMayPassKeepsTheGuestAndHandsOutTheCurrentKey() async throws {
        let h = try SimulatedSessionEnvironment { $0.refreshRetry.maximumAttempts = 1 }
        try await Self.startGuest(h)
        let current = try #require(h.store.record.session?.accessToken)
        h.clock.advance(by: .seconds(3550))
        h.provider.script(.serverError(status: 503), on: .anonymousBootstrap)
        #expect(try await h.session.validAccessToken().secret == current)
        #expect(h.session.stage == .active)
        #expect(h.session.identity?.isAnonymous == true)
    }

    // MARK: - Relaunch

    @Test func aRelaunchRestoresTheGuestOfflineFirst() async throws {
        let h = try SimulatedSessionEnvironment()
        try await Self.startGuest(h)
        let key = try #require(h.store.record.session?.accessToken)
        let subject = h.session.identity?.subject
        await h.session.shutdown()
        h.provider.script(.connectionFailure, on: .anonymousBootstrap, times: 10)
        let before = h.provider.requestLog.count
        let relaunched = await h.relaunch()
        #expect(try await relaunched.restore() == .active)
        #expect(relaunched.identity?.subject == subject)
        #expect(relaunched.identity?.isAnonymous == true)
        #expect(try await relaunched.validAccessToken().secret == key)
        #expect(h.provider.requestLog.count == before, "no request at launch")
    }

    @Test func aRelaunchWithADueKeyReturnsAtOnceAndRenewsInTheBackground() async throws {
        let h = try SimulatedSessionEnvironment()
        try await Self.startGuest(h)
        await h.session.shutdown()
        h.clock.advance(by: .seconds(3550))
        h.provider.script(.slow(.seconds(5)), on: .anonymousBootstrap)
        let relaunched = await h.relaunch()
        #expect(try await relaunched.restore() == .refreshing)
        await h.advanceToNextSleeper()
        await h.waitUntil("renewed") { relaunched.stage == .active }
        #expect(Self.bootstraps(h).count == 2)
        #expect(try await relaunched.validAccessToken().secret == h.store.record.session?.accessToken)
    }

    // MARK: - Signing in from a guest

    @Test func aVerifiedSignInFromAGuestPromotesItAndThenResetsTheGuestCredential() async throws {
        let h = try SimulatedSessionEnvironment()
        h.provider.register(SimulatedProviderUser(subject: "alice", isAnonymous: false, wasPreviouslyAnonymous: true))
        try await Self.startGuest(h)
        await h.startRecording()
        h.presenter.enqueue(.approve(subject: "alice"))
        let identity = try await h.session.signIn()
        #expect(identity.subject == "alice")
        #expect(!identity.isAnonymous)
        #expect(h.transitions == ["active→handoff", "handoff→verifying", "verifying→active"])
        #expect(h.events.contains(.anonymousUserPromoted(subject: "alice")))
        await h.waitUntil("guest credential reset") { h.store.guest == nil }
        #expect(h.store.record.session?.subject == "alice")
        #expect(h.store.record.session?.isGuest == nil)
        #expect(h.store.record.session?.refreshToken != nil)
    }

    @Test func aDeviceSignInFromAGuestPromotesItToo() async throws {
        let h = try SimulatedSessionEnvironment()
        h.provider.register(SimulatedProviderUser(subject: "alice", isAnonymous: false, wasPreviouslyAnonymous: true))
        try await Self.startGuest(h)
        await h.startRecording()
        h.provider.scriptDeviceAuthorization(SimulatedProviderDeviceScript(subject: "alice", decidedAtPoll: 1))
        h.presenter.enqueue(.showDeviceCode)
        let session = h.session
        let signIn = Task { await SessionCallResult { () async throws(SessionError) in try await session.signInWithDeviceCode() } }
        await h.waitUntil("the code is shown") { h.presenter.presentedDeviceCodes.count == 1 }
        await h.advanceToNextSleeper()
        let identity = try #require(await signIn.value.value)
        #expect(identity.subject == "alice")
        // The code is shown (handoff → handoff), then the approval is verified.
        #expect(h.transitions == ["active→handoff", "handoff→handoff", "handoff→verifying", "verifying→active"])
        #expect(h.events.contains(.anonymousUserPromoted(subject: "alice")))
        await h.waitUntil("guest credential reset") { h.store.guest == nil }
    }

    @Test func aSignInIntoAnotherAccountIsNoPromotion() async throws {
        let h = try SimulatedSessionEnvironment()
        try await Self.startGuest(h)
        await h.startRecording()
        try await h.signIn(as: "bob")
        #expect(!h.events.contains { if case .anonymousUserPromoted = $0 { true } else { false } })
        await h.waitUntil("guest credential reset") { h.store.guest == nil }
    }

    @Test(arguments: [ScriptedPresenter.Behaviour.cancel, .deny()])
    func aSignInFromAGuestThatDoesNotCompleteReturnsToTheGuest(behaviour: ScriptedPresenter.Behaviour) async throws {
        let h = try SimulatedSessionEnvironment()
        try await Self.startGuest(h)
        let guest = try #require(h.store.guest)
        let key = try #require(h.store.record.session?.accessToken)
        h.presenter.enqueue(behaviour)
        await #expect(throws: SessionError.self) { try await h.session.signIn() }
        #expect(h.session.stage == .active)
        #expect(h.session.identity?.isAnonymous == true)
        #expect(h.store.guest == guest, "the guest credential is kept")
        #expect(try await h.session.validAccessToken().secret == key)
    }

    // MARK: - Ending

    @Test func signingAGuestOutResetsTheDeviceCredentialAndTellsTheProviderNothing() async throws {
        let gate = ScriptedBiometricGate()
        let vault = HighAssuranceVault(gate: gate, now: { Date() }, isInBackground: { false })
        let h = try SimulatedSessionEnvironment { $0.highAssurance = vault }
        try await Self.startGuest(h)
        try await gate.store(Secret("high-assurance"), metadata: [])
        let before = h.provider.requestLog.count
        try await h.session.signOut()
        #expect(h.session.stage == .signedOut)
        #expect(h.store.guest == nil)
        #expect(h.store.record.session == nil)
        #expect(!gate.holdsPayload)
        #expect(h.provider.requestLog.count == before, "nothing is sent to the provider")
        // The next guest start is a new device and a new anonymous user.
        try await Self.startGuest(h)
        #expect(h.provider.guestDeviceCount == 2)
    }

    @Test func deletingAGuestEndsItAndAsksTheAppToDeleteItsData() async throws {
        let h = try SimulatedSessionEnvironment()
        try await Self.startGuest(h)
        let subject = try #require(h.session.identity?.subject)
        await h.startRecording()
        try await h.session.deleteAccount()
        #expect(h.session.stage == .signedOut)
        #expect(h.store.guest == nil)
        #expect(h.events.contains(.deleteUserData(subject: subject)))
        #expect(h.provider.requestCount(for: .disconnect) == 0)
    }

    @Test func aGuestWipeTheStoreRefusesKeepsTheGuest() async throws {
        let h = try SimulatedSessionEnvironment()
        try await Self.startGuest(h)
        h.store.failNext(.removeGuest, with: .permissionDenied("locked"))
        await #expect(throws: SessionError.storage(.permissionDenied("locked"))) { try await h.session.signOut() }
        #expect(h.session.stage == .active)
        #expect(h.store.guest != nil)
    }

    // MARK: - Secrets

    @Test func noGuestSecretShowsInEventsDescriptionsOrErrors() async throws {
        let h = try SimulatedSessionEnvironment()
        await h.startRecording()
        try await Self.startGuest(h)
        h.clock.advance(by: .seconds(3600))
        h.provider.script(Self.invalidDeviceSecret, on: .anonymousBootstrap, times: 2)
        let error = await SessionCallResult { () async throws(SessionError) in try await h.session.validAccessToken() }.error
        let secrets = h.issued.all
        #expect(!secrets.isEmpty)
        var rendered = h.events.map { "\($0)" } + [String(describing: error), String(reflecting: h.session)]
        if let guest = h.store.guest { rendered.append("\(guest)") }
        for text in rendered {
            for secret in secrets {
                #expect(!text.contains(secret.value), "a secret showed")
            }
        }
    }
}

/// A credential store without a guest credential slot.
private final class RecordOnlyStore: CredentialStore {
    private let record = Mutex(CredentialRecord())

    func load() async throws(CredentialStoreError) -> CredentialRecord { record.withLock { $0 } }
    func save(_ record: CredentialRecord) async throws(CredentialStoreError) { self.record.withLock { $0 = record } }
    func withLease<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value { try await body() }
}
