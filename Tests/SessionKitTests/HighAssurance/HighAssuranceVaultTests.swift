import Foundation
import SessionKit
import SessionKitCore
import SessionKitTesting
import Synchronization
import Testing

@Suite("High-assurance vault", .timeLimit(.minutes(1)))
struct HighAssuranceVaultTests {
    /// The app's foreground/background state, as the vault's seam reads it.
    final class AppState: Sendable {
        private let background = Mutex(false)
        var isInBackground: Bool {
            get { background.withLock { $0 } }
            set { background.withLock { $0 = newValue } }
        }
    }

    static let mfa = "urn:sessionkit:sim:mfa"
    static let reason = "Confirm the transfer of 120 €"

    /// A signed-in session after a step-up, a scripted gate and a vault over both.
    struct Setup {
        let env: SimulatedSessionEnvironment
        let gate: ScriptedBiometricGate
        let app = AppState()
        let vault: HighAssuranceVault
        let options: AuthorizationRequestOptions
        let identity: SessionIdentity
        let token: AccessToken

        init(
            options: AuthorizationRequestOptions? = nil, gate: ScriptedBiometricGate = ScriptedBiometricGate()
        ) async throws {
            env = try SimulatedSessionEnvironment()
            self.gate = gate
            let clock = env.clock
            let app = app
            vault = HighAssuranceVault(gate: gate, now: { clock.wallClockNow() }, isInBackground: { app.isInBackground })
            self.options = try options ?? AuthorizationRequestOptions(acr: .essential([HighAssuranceVaultTests.mfa]), maxAge: 300)
            env.presenter.enqueue(.approve(subject: "alice"))
            identity = try await env.session.signIn(options: self.options)
            token = try await env.session.validAccessToken()
        }

        func keep() async throws {
            try await vault.keep(token, identity: identity, stepUp: options)
        }

        func read(_ reason: String = HighAssuranceVaultTests.reason, subject: String? = nil) async throws -> HighAssuranceRead {
            try await vault.read(reason: reason, subject: subject)
        }
    }

    // MARK: Keeping

    @Test func aStepUpIsKeptAndReadOnlyWithTheConfirmationShowingTheAppsReason() async throws {
        let setup = try await Setup()
        try await setup.keep()
        #expect(setup.gate.storeCount == 1)
        #expect(setup.gate.reasonsShown.isEmpty)
        guard case .token(let kept) = try await setup.read() else {
            Issue.record("no token")
            return
        }
        #expect(kept.accessToken == setup.token)
        #expect(kept.subject == "alice")
        #expect(kept.authenticationContextClass == Self.mfa)
        #expect(kept.authenticationTime == setup.identity.claims.authenticationTime)
        #expect(setup.gate.reasonsShown == [Self.reason])
        #expect(setup.env.provider.isAccessTokenActive(kept.accessToken.secret))
    }

    @Test func aSignInThatAskedForNoStepUpIsNotKept() async throws {
        let setup = try await Setup(options: .empty)
        await #expect(throws: HighAssuranceError.notAStepUp) { try await setup.keep() }
        #expect(setup.gate.storeCount == 0)
    }

    @Test func aStepUpOlderThanItsMaxAgeIsNotKept() async throws {
        let setup = try await Setup()
        setup.env.clock.advance(by: .seconds(400))
        await #expect(throws: HighAssuranceError.stepUpTooOld) { try await setup.keep() }
    }

    @Test func aStepUpWithoutTheEssentialACRIsNotKept() async throws {
        let setup = try await Setup(options: try AuthorizationRequestOptions(maxAge: 300))
        let stricter = try AuthorizationRequestOptions(acr: .essential(["urn:example:hardware-key"]), maxAge: 300)
        await #expect(throws: HighAssuranceError.acrNotSatisfied) {
            try await setup.vault.keep(setup.token, identity: setup.identity, stepUp: stricter)
        }
    }

    @Test func anExpiredTokenIsNotKept() async throws {
        let setup = try await Setup(options: try AuthorizationRequestOptions(prompt: [.login]))
        setup.env.clock.advance(by: .seconds(3601))
        await #expect(throws: HighAssuranceError.expired) { try await setup.keep() }
    }

    @Test func withoutBiometricsNothingIsKept() async throws {
        let setup = try await Setup(gate: ScriptedBiometricGate(availability: .notEnrolled))
        await #expect(throws: HighAssuranceError.unavailable("no biometrics enrolled")) { try await setup.keep() }
        #expect(!setup.gate.holdsMetadata)
    }

    @Test func onAPlatformWithoutAGateKeepingAndReadingSaySo() async throws {
        let setup = try await Setup()
        #if canImport(Security) && canImport(LocalAuthentication)
            #expect(HighAssuranceVault.platformGate(service: "app") is KeychainBiometricGate)
        #else
            #expect(HighAssuranceVault.platformGate(service: "app") is UnavailableBiometricGate)
        #endif
        let clock = setup.env.clock
        let vault = HighAssuranceVault(gate: UnavailableBiometricGate(), now: { clock.wallClockNow() }, isInBackground: { false })
        await #expect(throws: HighAssuranceError.unavailable("this platform has no biometric gate; supply a BiometricGate")) {
            try await vault.keep(setup.token, identity: setup.identity, stepUp: setup.options)
        }
        #expect(try await vault.read(reason: Self.reason) == .unavailable("this platform has no biometric gate; supply a BiometricGate"))
    }

    // MARK: Reading

    @Test func aReadInTheBackgroundIsRefusedWithoutAskingAnyone() async throws {
        let setup = try await Setup()
        try await setup.keep()
        setup.app.isInBackground = true
        #expect(try await setup.read() == .refusedInBackground)
        #expect(setup.gate.reasonsShown.isEmpty)
        #expect(setup.gate.holdsPayload)
        setup.app.isInBackground = false
        setup.gate.enqueue(.interactionNotAllowed)
        #expect(try await setup.read() == .refusedInBackground)
    }

    @Test func aDenialKeepsTheTokenForTheNextTry() async throws {
        let setup = try await Setup()
        try await setup.keep()
        setup.gate.enqueue(.deny)
        #expect(try await setup.read() == .notConfirmed)
        #expect(setup.gate.holdsPayload)
        guard case .token = try await setup.read() else {
            Issue.record("no token after confirming")
            return
        }
        #expect(setup.gate.reasonsShown.count == 2)
    }

    @Test func anEnrollmentChangeAsksForANewStepUpAndRemovesTheRemains() async throws {
        let setup = try await Setup()
        try await setup.keep()
        setup.gate.enqueue(.enrollmentChanged)
        #expect(try await setup.read() == .stepUpRequired(.biometricsChanged))
        #expect(!setup.gate.holdsMetadata)
        #expect(try await setup.read() == .stepUpRequired(.nothingKept))
        // A new step-up can be kept again.
        try await setup.keep()
        guard case .token = try await setup.read() else {
            Issue.record("no token after a new step-up")
            return
        }
    }

    @Test func removingEveryEnrolledBiometricIsAnEnrollmentChangeToo() async throws {
        let setup = try await Setup()
        try await setup.keep()
        setup.gate.setAvailability(.notEnrolled)
        #expect(try await setup.read() == .stepUpRequired(.biometricsChanged))
        #expect(setup.gate.reasonsShown.isEmpty)
        #expect(!setup.gate.holdsMetadata)
    }

    @Test func anEnrollmentChangeBetweenKeepingAndReadingIsFound() async throws {
        let setup = try await Setup()
        try await setup.keep()
        setup.gate.changeEnrollment()
        #expect(try await setup.read() == .stepUpRequired(.biometricsChanged))
    }

    @Test func anExpiredTokenIsRemovedWithoutAskingThePerson() async throws {
        let setup = try await Setup()
        try await setup.keep()
        setup.env.clock.advance(by: .seconds(3600))
        #expect(try await setup.read() == .stepUpRequired(.expired))
        #expect(setup.gate.reasonsShown.isEmpty)
        #expect(!setup.gate.holdsMetadata)
    }

    @Test func aTokenKeptForAnotherAccountIsRemoved() async throws {
        let setup = try await Setup()
        try await setup.keep()
        #expect(try await setup.read(subject: "bob") == .stepUpRequired(.anotherAccount))
        #expect(setup.gate.reasonsShown.isEmpty)
        #expect(try await setup.read(subject: "alice") == .stepUpRequired(.nothingKept))
    }

    @Test func nothingKeptIsSaidWithoutAskingAndAnEmptyReasonIsMisuse() async throws {
        let setup = try await Setup()
        #expect(try await setup.read() == .stepUpRequired(.nothingKept))
        await #expect(throws: HighAssuranceError.emptyReason) { try await setup.vault.read(reason: "  ") }
        #expect(setup.gate.reasonsShown.isEmpty)
    }

    @Test func aGateFailureIsATypedError() async throws {
        let setup = try await Setup()
        try await setup.keep()
        setup.gate.enqueue(.fail("the Keychain is busy"))
        await #expect(throws: HighAssuranceError.gate(.failed("the Keychain is busy"))) { try await setup.read() }
        #expect(setup.gate.holdsPayload)
    }

    // MARK: Removing

    @Test func removeLeavesNothingToRead() async throws {
        let setup = try await Setup()
        try await setup.keep()
        #expect(try await setup.vault.isTokenKept())
        try await setup.vault.remove()
        #expect(try await !setup.vault.isTokenKept())
        #expect(!setup.gate.holdsPayload && !setup.gate.holdsMetadata)
        #expect(try await setup.read() == .stepUpRequired(.nothingKept))
        try await setup.vault.remove()
    }

    // MARK: Redaction

    @Test func noRenderingShowsTheToken() async throws {
        let setup = try await Setup()
        try await setup.keep()
        let read = try await setup.read()
        guard case .token(let kept) = read else {
            Issue.record("no token")
            return
        }
        var dumped = ""
        dump(read, to: &dumped)
        for text in [String(describing: read), String(reflecting: read), String(describing: kept), dumped] {
            #expect(!text.contains(setup.token.secret.value))
        }
    }
}

/// A scripted gate whose prompt stays up until the test answers it, to show the vault's turns.
final class HeldBiometricGate: BiometricGate {
    let scripted = ScriptedBiometricGate()
    /// Notified when a prompt goes up or is answered.
    let changes = SessionChangeFeed()
    private let prompt = Locked<CheckedContinuation<Void, Never>?>(nil)

    /// Whether a prompt is up, waiting for ``answer()``.
    var promptShowing: Bool { prompt.withLock { $0 != nil } }

    /// The person answers the prompt that is up (as the scripted gate's next answer says).
    func answer() {
        prompt.withLock { held in
            defer { held = nil }
            return held
        }?.resume()
        changes.notify()
    }

    func availability() async -> BiometricAvailability { await scripted.availability() }
    func store(_ payload: Secret, metadata: [UInt8]) async throws(BiometricGateError) {
        try await scripted.store(payload, metadata: metadata)
    }
    func storedMetadata() async throws(BiometricGateError) -> [UInt8]? { try await scripted.storedMetadata() }
    func remove() async throws(BiometricGateError) { try await scripted.remove() }

    func read(reason: String) async throws(BiometricGateError) -> Secret? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                prompt.withLock { $0 = continuation }
                changes.notify()
            }
        } onCancel: {
            // The system takes a prompt down when its task is cancelled.
            self.answer()
        }
        if Task.isCancelled { throw .notConfirmed }
        return try await scripted.read(reason: reason)
    }
}

@Suite("High-assurance vault turns", .timeLimit(.minutes(1)))
struct HighAssuranceVaultTurnTests {
    private static func vaultKeeping(_ gate: HeldBiometricGate) async throws -> (HighAssuranceVault, SimulatedSessionEnvironment) {
        let env = try SimulatedSessionEnvironment()
        let clock = env.clock
        let vault = HighAssuranceVault(gate: gate, now: { clock.wallClockNow() }, isInBackground: { false })
        let options = try AuthorizationRequestOptions(acr: .essential([HighAssuranceVaultTests.mfa]), maxAge: 300)
        env.presenter.enqueue(.approve(subject: "alice"))
        let identity = try await env.session.signIn(options: options)
        try await vault.keep(try await env.session.validAccessToken(), identity: identity, stepUp: options)
        return (vault, env)
    }

    /// A vault keeping a step-up, and a read of it whose prompt is up, waiting for the person.
    private static func readUnderWay() async throws -> (
        HeldBiometricGate, HighAssuranceVault, SimulatedSessionEnvironment, Task<Result<HighAssuranceRead, HighAssuranceError>, Never>
    ) {
        let gate = HeldBiometricGate()
        let (vault, env) = try await vaultKeeping(gate)
        let read = outcome { () async throws(HighAssuranceError) in try await vault.read(reason: HighAssuranceVaultTests.reason) }
        await waitUntil(gate.changes) { gate.promptShowing }
        return (gate, vault, env, read)
    }

    private static func outcome<Value: Sendable>(
        _ body: @escaping @Sendable () async throws(HighAssuranceError) -> Value
    ) -> Task<Result<Value, HighAssuranceError>, Never> {
        Task {
            do throws(HighAssuranceError) {
                return .success(try await body())
            } catch {
                return .failure(error)
            }
        }
    }

    /// The error a call ended with, or `nil` when it succeeded.
    private static func error<Value>(_ result: Result<Value, HighAssuranceError>) -> HighAssuranceError? {
        if case .failure(let error) = result { error } else { nil }
    }

    @Test func aRemovalWaitsUntilTheReadUnderWayIsAnswered() async throws {
        let (gate, vault, env, read) = try await Self.readUnderWay()
        let removal = Self.outcome { () async throws(HighAssuranceError) in try await vault.remove() }
        await waitUntil(vault.changes) { vault.waitingTurnCount == 1 }
        // The prompt is up: the removal has not touched the item.
        #expect(gate.scripted.removeCount == 0)
        gate.answer()
        guard case .success(.token(let token)) = await read.value else {
            Issue.record("the read under way did not get the kept token")
            return
        }
        #expect(token.subject == "alice")
        #expect(Self.error(await removal.value) == nil)
        #expect(gate.scripted.removeCount == 1)
        try await env.finish()
    }

    @Test func aCallerCancelledWhileWaitingLeavesAndTheNextStillGetsItsTurn() async throws {
        let (gate, vault, env, read) = try await Self.readUnderWay()
        let leaving = Self.outcome { () async throws(HighAssuranceError) in try await vault.isTokenKept() }
        let staying = Self.outcome { () async throws(HighAssuranceError) in try await vault.isTokenKept() }
        await waitUntil(vault.changes) { vault.waitingTurnCount == 2 }
        leaving.cancel()
        #expect(Self.error(await leaving.value) == .cancelled)
        #expect(vault.waitingTurnCount == 1)
        gate.answer()
        _ = await read.value
        #expect(await staying.value == .success(true))
        try await env.finish()
    }

    @Test func shutdownAnswersTheWaitingCancelsThePromptAndRefusesLaterCalls() async throws {
        let (gate, vault, env, read) = try await Self.readUnderWay()
        let removal = Self.outcome { () async throws(HighAssuranceError) in try await vault.remove() }
        await waitUntil(vault.changes) { vault.waitingTurnCount == 1 }
        await vault.shutdown()
        #expect(Self.error(await removal.value) == .shutDown)
        // The prompt came down with the turn's cancellation; nobody answered it.
        #expect(Self.error(await read.value) == .shutDown)
        let later = await Self.outcome { () async throws(HighAssuranceError) in try await vault.isTokenKept() }.value
        #expect(Self.error(later) == .shutDown)
        // What is kept stays kept.
        #expect(gate.scripted.holdsPayload)
        #expect(gate.scripted.removeCount == 0)
        try await env.finish()
    }
}
