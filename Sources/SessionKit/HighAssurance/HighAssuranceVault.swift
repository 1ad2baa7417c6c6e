public import Foundation
import SessionKitCore
import Synchronization

/// Keeps the result of a step-up sign-in behind the person's biometric confirmation, for one
/// high-assurance action (a payment, a change of password), and decides when it may be read.
///
/// This follows the 1pass.dev integration guide: a high-assurance token lives in its own item
/// (on Apple, a Keychain item `WhenUnlockedThisDeviceOnly` with `.biometryCurrentSet`), apart from
/// the session's credentials; it is read only right before the action and never for background
/// work; a change of the enrolled biometrics invalidates it. The reference SDK has no such slot,
/// so the guide is all there is to follow.
///
/// - ``keep(_:identity:stepUp:)`` after `Session.signIn(options:)` with step-up options (`max_age`,
///   essential `acr`, `prompt=login`) stores the access token with its subject and expiry. It
///   refuses a sign-in that asked for no step-up, a step-up older than its `max_age` or without the
///   essential `acr`, an expired token, and a device without biometrics.
/// - ``read(reason:subject:)`` asks the person, showing `reason`, and returns a
///   ``HighAssuranceRead``: the token, or why not. It never reads while the app is in the
///   background (nobody is asked), never asks when nothing usable is kept (nothing, expired, another
///   account), and turns "the biometrics changed" into ``HighAssuranceRead/stepUpRequired(_:)``,
///   removing the remains.
/// - ``remove()`` deletes it: call it at sign-out and account deletion (the session does).
///
/// Every decision is here, in code tested on Linux with the test kit's scripted gate; the
/// ``BiometricGate`` only stores, asks and removes.
///
/// Keeping, reading and removing take turns, in arrival order: a removal at sign-out never lands
/// between a read's look at what is kept and its prompt. ``shutdown()`` answers every caller still
/// waiting for its turn with ``HighAssuranceError/shutDown`` and cancels the operation under way.
public final class HighAssuranceVault: Sendable {
    /// What is kept beside the protected token, readable without asking: never a secret.
    struct Metadata: Codable, Equatable {
        var subject: String
        var expiresAt: Date
        var authenticationTime: Date?
        var authenticationContextClass: String?
    }

    private let gate: any BiometricGate
    private let now: @Sendable () -> Date
    private let isInBackground: @Sendable () async -> Bool
    private let skew: TimeInterval
    /// One lock around the turns, one ordered runner; the operations run in their callers' tasks.
    private let shell = MachineShell(HighAssuranceTurns(), runner: HighAssuranceTurnRunner())

    /// Creates a vault.
    ///
    /// - Parameters:
    ///   - gate: where the token is kept; ``platformGate(service:)`` for the platform's own.
    ///   - now: the wall clock that judges expiry and `max_age`.
    ///   - isInBackground: whether the app is in the background right now (on iOS,
    ///     ``systemIsInBackground()``); a read then is refused without asking.
    ///   - clockSkew: the leeway for `max_age`, as the id_token checks use (60 s).
    public init(
        gate: any BiometricGate, now: @escaping @Sendable () -> Date,
        isInBackground: @escaping @Sendable () async -> Bool, clockSkew: Duration = .seconds(60)
    ) {
        self.gate = gate
        self.now = now
        self.isInBackground = isInBackground
        self.skew = Double(clockSkew.components.seconds)
    }

    /// The platform's gate: `KeychainBiometricGate` where Security and LocalAuthentication
    /// exist, else ``UnavailableBiometricGate``.
    public static func platformGate(service: String) -> any BiometricGate {
        #if canImport(Security) && canImport(LocalAuthentication)
            KeychainBiometricGate(service: service)
        #else
            UnavailableBiometricGate()
        #endif
    }

    // MARK: Keeping

    /// Keeps the access token of a step-up sign-in behind the gate, replacing any kept before.
    ///
    /// - Parameters:
    ///   - accessToken: the token the step-up sign-in brought (`Session.validAccessToken()` right after it).
    ///   - identity: the identity `Session.signIn(options:)` returned.
    ///   - options: the step-up options that sign-in asked for.
    public func keep(
        _ accessToken: AccessToken, identity: SessionIdentity, stepUp options: AuthorizationRequestOptions
    ) async throws(HighAssuranceError) {
        try await inTurn { [self] () async throws(HighAssuranceError) in
            try await keepInTurn(accessToken, identity: identity, stepUp: options)
        }
    }

    private func keepInTurn(
        _ accessToken: AccessToken, identity: SessionIdentity, stepUp options: AuthorizationRequestOptions
    ) async throws(HighAssuranceError) {
        let now = now()
        let claims = identity.claims
        guard options.maxAge != nil || !options.essentialACRValues.isEmpty || options.prompt.contains(.login) else {
            throw .notAStepUp
        }
        if let maxAge = options.maxAgeToCheck {
            guard let authTime = claims.authenticationTime, now.timeIntervalSince(authTime) <= maxAge + skew else {
                throw .stepUpTooOld
            }
        }
        let essential = options.essentialACRValues
        if !essential.isEmpty {
            guard let acr = claims.authenticationContextClass, essential.contains(acr) else { throw .acrNotSatisfied }
        }
        guard accessToken.expiresAt > now else { throw .expired }
        switch await gate.availability() {
        case .available: break
        case .notEnrolled: throw .unavailable(BiometricAvailability.notEnrolled.description)
        case .unavailable(let reason): throw .unavailable(reason)
        }
        let metadata = Metadata(
            subject: identity.subject, expiresAt: accessToken.expiresAt, authenticationTime: claims.authenticationTime,
            authenticationContextClass: claims.authenticationContextClass)
        do throws(BiometricGateError) {
            try await gate.store(accessToken.secret, metadata: Self.encode(metadata))
        } catch {
            throw .gate(error)
        }
    }

    // MARK: Reading

    /// Asks the person to confirm, showing `reason`, and returns the kept token or why not.
    ///
    /// - Parameters:
    ///   - reason: what the app tells the person the confirmation is for (e.g. "Confirm the
    ///     payment of 120 €"); it must not be empty.
    ///   - subject: the account the action is for; a token kept for another one is removed.
    /// - Throws: ``HighAssuranceError/emptyReason`` for an empty reason, ``HighAssuranceError/gate(_:)``
    ///   when the gate fails otherwise.
    public func read(reason: String, subject: String? = nil) async throws(HighAssuranceError) -> HighAssuranceRead {
        guard !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw .emptyReason }
        return try await inTurn { [self] () async throws(HighAssuranceError) in try await readInTurn(reason: reason, subject: subject) }
    }

    private func readInTurn(reason: String, subject: String?) async throws(HighAssuranceError) -> HighAssuranceRead {
        guard await !isInBackground() else { return .refusedInBackground }
        let stored: [UInt8]?
        do throws(BiometricGateError) {
            stored = try await gate.storedMetadata()
        } catch {
            return try Self.outcome(of: error)
        }
        guard let stored else {
            if case .unavailable(let reason) = await gate.availability() { return .unavailable(reason) }
            return .stepUpRequired(.nothingKept)
        }
        guard let metadata = Self.decode(stored) else {
            // Remains this build cannot read are no token anyone can use.
            try await discard()
            return .stepUpRequired(.nothingKept)
        }
        if let subject, subject != metadata.subject {
            try await discard()
            return .stepUpRequired(.anotherAccount)
        }
        guard metadata.expiresAt > now() else {
            try await discard()
            return .stepUpRequired(.expired)
        }
        switch await gate.availability() {
        case .available: break
        case .notEnrolled:
            // Removing every enrolled biometric invalidates a `.biometryCurrentSet` item too.
            try await discard()
            return .stepUpRequired(.biometricsChanged)
        case .unavailable(let reason): return .unavailable(reason)
        }
        // The app may have left the foreground while the metadata was read.
        guard await !isInBackground() else { return .refusedInBackground }
        let payload: Secret?
        do throws(BiometricGateError) {
            payload = try await gate.read(reason: reason)
        } catch {
            return try Self.outcome(of: error)
        }
        guard let payload else {
            // The metadata is there and the protected item is gone: the biometrics changed.
            try await discard()
            return .stepUpRequired(.biometricsChanged)
        }
        return .token(
            HighAssuranceToken(
                accessToken: AccessToken(secret: payload, expiresAt: metadata.expiresAt), subject: metadata.subject,
                authenticationTime: metadata.authenticationTime, authenticationContextClass: metadata.authenticationContextClass))
    }

    /// Whether a token is kept (expired or not), without asking the person.
    public func isTokenKept() async throws(HighAssuranceError) -> Bool {
        try await inTurn { [gate] () async throws(HighAssuranceError) in
            do throws(BiometricGateError) {
                return try await gate.storedMetadata() != nil
            } catch {
                throw .gate(error)
            }
        }
    }

    // MARK: Removing

    /// Removes the kept token and its metadata; removing nothing succeeds. Sign-out and account
    /// deletion call it.
    public func remove() async throws(HighAssuranceError) {
        try await inTurn { [self] () async throws(HighAssuranceError) in try await discard() }
    }

    // MARK: Turns

    /// Answers every caller still waiting for its turn with ``HighAssuranceError/shutDown``, cancels
    /// the operation under way (a prompt that is up comes down; its caller gets
    /// ``HighAssuranceError/shutDown``, and what the operation did before stands), and answers every
    /// later call with ``HighAssuranceError/shutDown``. What is kept stays kept.
    public func shutdown() async {
        await shell.shutdown()
    }

    /// How many callers wait for their turn, for tests of the turns.
    package var waitingTurnCount: Int { shell.read { $0.waitingCount } }

    /// Notified after every step of the turns, for tests that wait on them.
    package var changes: SessionChangeFeed { shell.work.changes }

    /// Runs `operation` in the caller's task once it is the caller's turn.
    private func inTurn<Value: Sendable>(
        _ operation: @escaping @Sendable () async throws(HighAssuranceError) -> Value
    ) async throws(HighAssuranceError) -> Value {
        let answer = await shell.suspend(cancelled: HighAssuranceTurns.Answer.cancelled) { turns, id, turn in
            turns.requested(id, turn)
        }
        let token: CancelToken
        switch answer {
        case .go(let given): token = given
        case .cancelled: throw .cancelled
        case .shutDown: throw .shutDown
        }
        defer { shell.modify { $0.finished(token) } }
        let outcome = Mutex<Result<Value, HighAssuranceError>>(.failure(.cancelled))
        await token.race {
            do throws(HighAssuranceError) {
                let value = try await operation()
                outcome.withLock { $0 = .success(value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
        }
        // A turn the shutdown cancelled answers `shutDown`, not what the work cut short gave
        // (a prompt taken down reads as "not confirmed").
        if token.isCancelled { throw .shutDown }
        return try outcome.withLock { $0 }.get()
    }

    private func discard() async throws(HighAssuranceError) {
        do throws(BiometricGateError) {
            try await gate.remove()
        } catch {
            throw .gate(error)
        }
    }

    private static func outcome(of error: BiometricGateError) throws(HighAssuranceError) -> HighAssuranceRead {
        switch error {
        case .notConfirmed: return .notConfirmed
        case .interactionNotAllowed: return .refusedInBackground
        case .unavailable(let reason): return .unavailable(reason)
        case .failed: throw .gate(error)
        }
    }

    static func encode(_ metadata: Metadata) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        // A record of strings and dates always encodes.
        return Array((try? encoder.encode(metadata)) ?? Data())
    }

    static func decode(_ bytes: [UInt8]) -> Metadata? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(Metadata.self, from: Data(bytes))
    }
}
