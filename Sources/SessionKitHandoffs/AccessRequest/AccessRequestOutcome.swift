/// How an access request ended, decided from what the share sheet reported.
///
/// Every outcome says how the app may try again (``retryPolicy``).
@nonexhaustive
public enum AccessRequestOutcome: Sendable, Hashable, CustomStringConvertible {
    /// 1Password granted the request: the grant's state is `resolved`.
    case granted(AccessGrant)
    /// 1Password answered with a grant in another state (`pending`, `denied`, `failed`,
    /// `expired`): the request's final state for now, reported as such.
    case notGranted(AccessGrant)
    /// The person declined.
    case declined
    /// 1Password (or the share sheet) reported a failure.
    case failed(AccessRequestFailure)
    /// The sheet closed without 1Password being chosen: nothing completed, nothing returned.
    case cancelled
    /// An activity completed but returned no grant.
    case grantMissing

    /// Decides what a share-sheet completion means, as 1Password's sample code does.
    ///
    /// A completed sheet that returned a grant attachment is answered by that grant, even if an
    /// error came along: the grant is 1Password's answer. The first grant attachment in item
    /// order counts (1Password returns one). Otherwise a reported error decides: `declined` is
    /// ``declined``, the other protocol errors are failures with that cause, an unknown error is
    /// an unrecognized failure. Without either, a sheet that did not complete was closed without
    /// a choice, and a completed one returned no grant. The grant is decoded strictly; its state
    /// decides between ``granted(_:)`` and ``notGranted(_:)``.
    public init(_ completion: AccessRequestCompletion) {
        if completion.completed, let data = completion.grantData.first {
            do {
                let grant = try AccessGrant.decode(data)
                self = grant.state == .resolved ? .granted(grant) : .notGranted(grant)
            } catch {
                self = .failed(.unreadableGrant(error))
            }
            return
        }
        if let error = completion.error {
            switch error.code {
            case .declined?: self = .declined
            case .requestDecodeFailure?: self = .failed(.requestDecodeFailure)
            case .missingRequest?: self = .failed(.missingRequest)
            case .unsupportedVersion?: self = .failed(.unsupportedVersion)
            case .internalError?: self = .failed(.internalError)
            case nil: self = .failed(.unrecognized(domain: error.domain, number: error.number))
            }
            return
        }
        self = completion.completed ? .grantMissing : .cancelled
    }

    /// The grant, when 1Password returned one.
    public var grant: AccessGrant? {
        switch self {
        case .granted(let grant), .notGranted(let grant): grant
        default: nil
        }
    }

    /// A one-line summary without references.
    public var description: String {
        switch self {
        case .granted(let grant): "granted (\(grant.resolved.count) \(grant.resolved.count == 1 ? "entry" : "entries"))"
        case .notGranted(let grant): "not granted: \(grant.state)"
        case .declined: "declined"
        case .failed(let failure): "failed: \(failure)"
        case .cancelled: "cancelled"
        case .grantMissing: "completed without a grant"
        }
    }
}
