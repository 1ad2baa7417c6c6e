public import SessionKit
public import SessionKitCore

/// A `BiometricGate` in memory whose person answers as scripted: confirm, deny, find the item
/// invalidated by an enrollment change, or no biometrics at all.
///
/// It behaves like the Keychain item where the vault can tell: storing does not ask, a read asks
/// once (and records the reason shown), an enrollment change drops the protected payload but
/// keeps the metadata, removal removes both. Answers queue up with ``enqueue(_:)``; with none
/// queued, the person confirms.
///
/// ```swift
/// let gate = ScriptedBiometricGate()
/// gate.enqueue(.deny)
/// let vault = HighAssuranceVault(gate: gate, now: { clock.wallClockNow() }, isInBackground: { false })
/// ```
public final class ScriptedBiometricGate: BiometricGate {
    /// How the person answers one read.
    @nonexhaustive
    public enum Answer: Sendable, Hashable {
        /// The person confirms: the payload is returned.
        case confirm
        /// The person cancels or does not match.
        case deny
        /// The enrolled biometrics changed before this read: the payload is gone (as the Keychain
        /// invalidates a `.biometryCurrentSet` item), the metadata stays.
        case enrollmentChanged
        /// The system refuses to ask now (as in the background).
        case interactionNotAllowed
        /// The read fails with this system message.
        case fail(String)
    }

    private struct State {
        var availability: BiometricAvailability
        var payload: Secret?
        var metadata: [UInt8]?
        var answers: [Answer] = []
        var reasons: [String] = []
        var storeCount = 0
        var removeCount = 0
    }

    private let state: Locked<State>

    /// Creates a gate with biometrics `availability` and nothing stored.
    public init(availability: BiometricAvailability = .available) {
        state = Locked(State(availability: availability))
    }

    // MARK: Script

    /// Queues how the person answers the next reads, in order.
    public func enqueue(_ answers: Answer...) {
        state.withLock { $0.answers += answers }
    }

    /// Changes whether biometrics are available from now on.
    public func setAvailability(_ availability: BiometricAvailability) {
        state.withLock { $0.availability = availability }
    }

    /// Plays an enrollment change now: the protected payload is invalidated, the metadata stays.
    public func changeEnrollment() {
        state.withLock { $0.payload = nil }
    }

    // MARK: Inspection

    /// Every reason passed to a read, in order, a read that found the item invalidated by an
    /// enrollment change included (the Keychain answers that one without a prompt).
    public var reasonsShown: [String] { state.withLock { $0.reasons } }

    /// Whether a payload is stored (an invalidated one is not).
    public var holdsPayload: Bool { state.withLock { $0.payload != nil } }

    /// Whether metadata is stored.
    public var holdsMetadata: Bool { state.withLock { $0.metadata != nil } }

    /// How many times something was stored.
    public var storeCount: Int { state.withLock { $0.storeCount } }

    /// How many times ``remove()`` ran.
    public var removeCount: Int { state.withLock { $0.removeCount } }

    // MARK: BiometricGate

    /// The scripted availability.
    public func availability() async -> BiometricAvailability {
        state.withLock { $0.availability }
    }

    /// Stores both, unless biometrics are unavailable.
    public func store(_ payload: Secret, metadata: [UInt8]) async throws(BiometricGateError) {
        try state.withLock { (state) throws(BiometricGateError) in
            switch state.availability {
            case .available: break
            case .notEnrolled: throw .unavailable("no biometrics enrolled")
            case .unavailable(let reason): throw .unavailable(reason)
            }
            state.payload = payload
            state.metadata = metadata
            state.storeCount += 1
        }
    }

    /// The stored metadata; never asks.
    public func storedMetadata() async throws(BiometricGateError) -> [UInt8]? {
        state.withLock { $0.metadata }
    }

    /// Asks the person (records `reason`) and answers as scripted.
    public func read(reason: String) async throws(BiometricGateError) -> Secret? {
        try state.withLock { (state) throws(BiometricGateError) -> Secret? in
            if case .unavailable(let why) = state.availability { throw .unavailable(why) }
            let answer = state.answers.isEmpty ? .confirm : state.answers.removeFirst()
            if answer == .interactionNotAllowed { throw .interactionNotAllowed }
            state.reasons.append(reason)
            switch answer {
            case .confirm:
                return state.payload
            case .deny:
                throw .notConfirmed
            case .enrollmentChanged:
                state.payload = nil
                return nil
            case .fail(let message):
                throw .failed(message)
            case .interactionNotAllowed:
                throw .interactionNotAllowed
            }
        }
    }

    /// Removes both.
    public func remove() async throws(BiometricGateError) {
        state.withLock { state in
            state.payload = nil
            state.metadata = nil
            state.removeCount += 1
        }
    }
}
