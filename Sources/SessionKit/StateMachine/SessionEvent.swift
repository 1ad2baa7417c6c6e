public import Foundation

/// One change of stage, as published on `Session.events()`.
public struct SessionTransition: Sendable, Hashable {
    /// The stage left, or `nil` for the replayed current stage a new subscriber receives first.
    public var from: SessionStage?
    /// The stage entered.
    public var to: SessionStage
    /// Why.
    public var reason: TransitionReason
    /// The session's wall clock at the change (injected, so simulated in tests).
    public var date: Date

    /// Creates a transition record.
    public init(from: SessionStage?, to: SessionStage, reason: TransitionReason, date: Date) {
        self.from = from
        self.to = to
        self.reason = reason
        self.date = date
    }
}

/// Everything a session tells the app, in order.
@nonexhaustive
public enum SessionEvent: Sendable, Hashable {
    /// The session changed stage.
    case transition(SessionTransition)
    /// The account was deleted at the provider: delete the app's own data for this subject.
    case deleteUserData(subject: String)
    /// The effective subject (`canonical_sub ?? sub`) changed: an account merge at the provider.
    case subjectChanged(from: String, to: String, absorbed: [String])
    /// An anonymous user was promoted to a full account.
    case anonymousUserPromoted(subject: String)
    /// A guest session's stored device secret was refused and the device bootstrapped afresh:
    /// the provider made a new anonymous user, so what the app kept for `previousSubject` is not
    /// `subject`'s.
    case guestStartedOver(previousSubject: String, subject: String)
    /// A refresh token from an earlier session was revoked in the background.
    case deferredRevocationCompleted
    /// Sign-out asked the provider to end its browser session too; this is how that went. Never
    /// a reason to worry about the sign-out itself: it was complete before the attempt began.
    case providerLogout(ProviderLogoutOutcome)
    /// A URL matched the redirect URI but was not consumed; it carries the reason, never a value.
    /// A URL that does not match the redirect URI at all is not the session's and raises nothing.
    case callbackRefused(CallbackRefusal)
    /// No secure store answered, so the credentials are kept in files; `reason` is the system's
    /// (no keyring on the session bus, libsecret missing). Published by `restore()` at launch for
    /// the platform store `Session(provider:presenter:)` picks; show it or log it.
    case credentialStoreFallback(reason: String)
    /// At launch the credential store could not be read because the device is locked (before
    /// its first unlock, or while the system prewarms the app): not "signed out". ``Session/restore()``
    /// waits for protected data when the configuration has a source, and otherwise throws
    /// `SessionError.storage(.locked)`; call it again once the device is unlocked.
    case credentialStoreLocked
    /// The session found itself in an inconsistent state (a bug in SessionKit) and stopped: every
    /// call fails with `SessionError.sessionFailed`. The stored credentials are untouched, so a
    /// new session restores them.
    case sessionFailed
}

/// Why a URL that matched the redirect URI was not consumed as the callback.
@nonexhaustive
public enum CallbackRefusal: Sendable, Hashable, CustomStringConvertible {
    /// No sign-in waits for a callback (a stale or replayed link).
    case noHandoffWaiting
    /// Its `state` is not the pending handoff's (a forged or foreign link); the handoff keeps waiting.
    case stateMismatch
    /// A parameter appears more than once (RFC 6749 §3.1); the handoff keeps waiting.
    case repeatedParameter(name: String)
    /// Its `iss` is not the provider's (RFC 9207): a mix-up; the sign-in ended.
    case issuerMismatch
    /// It carries neither a `code` nor an `error`; the sign-in ended.
    case missingCode

    /// One readable phrase, without any parameter value.
    public var description: String {
        switch self {
        case .noHandoffWaiting: "no handoff waits for a callback"
        case .stateMismatch: "state does not match the pending handoff"
        case .repeatedParameter(let name): "parameter \(name) repeated"
        case .issuerMismatch: "iss mismatch"
        case .missingCode: "no code"
        }
    }

    /// The stable name: `no_handoff_waiting`, `state_mismatch`, `repeated_parameter`, `issuer_mismatch`, `missing_code`.
    public var code: String {
        switch self {
        case .noHandoffWaiting: "no_handoff_waiting"
        case .stateMismatch: "state_mismatch"
        case .repeatedParameter: "repeated_parameter"
        case .issuerMismatch: "issuer_mismatch"
        case .missingCode: "missing_code"
        }
    }
}
