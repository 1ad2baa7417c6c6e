/// Whether and how an app may try an access request again, as code the app can read.
///
/// The reference always travels unchanged: a retry presents the very same reference.
@nonexhaustive
public enum AccessRequestRetryPolicy: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Nothing to retry: the request was granted.
    case notNeeded
    /// Never retry automatically (declined, denied, failed, or an error nobody knows).
    case doNotRetry
    /// Present the same reference again later, unchanged (an internal error, a pending request).
    case presentAgainLater
    /// Ask the person to update 1Password (the request's version is not supported).
    case updateOnePassword
    /// The request itself is broken: fix it; presenting it again would fail the same way.
    case fixRequest
    /// The request expired: create a new access request; this reference is spent.
    case createNewRequest
    /// Offer the request again only when the person asks (the sheet was closed, or another
    /// activity was chosen).
    case whenThePersonAsks

    /// Whether the app may present the request again without the person asking.
    public var allowsAutomaticRetry: Bool { self == .presentAgainLater }

    /// The policy's name.
    public var description: String {
        switch self {
        case .notNeeded: "notNeeded"
        case .doNotRetry: "doNotRetry"
        case .presentAgainLater: "presentAgainLater"
        case .updateOnePassword: "updateOnePassword"
        case .fixRequest: "fixRequest"
        case .createNewRequest: "createNewRequest"
        case .whenThePersonAsks: "whenThePersonAsks"
        }
    }
}

extension AccessRequestOutcome {
    /// How the app may try again after this outcome.
    public var retryPolicy: AccessRequestRetryPolicy {
        switch self {
        case .granted: .notNeeded
        case .notGranted(let grant):
            switch grant.state {
            case .pending: .presentAgainLater
            case .expired: .createNewRequest
            case .denied, .failed, .resolved: .doNotRetry
            }
        case .declined: .doNotRetry
        case .failed(.internalError): .presentAgainLater
        case .failed(.unsupportedVersion): .updateOnePassword
        case .failed(.requestDecodeFailure), .failed(.missingRequest): .fixRequest
        case .failed(.unrecognized), .failed(.unreadableGrant): .doNotRetry
        case .cancelled, .grantMissing: .whenThePersonAsks
        }
    }
}
