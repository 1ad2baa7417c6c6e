public import SessionKitHandoffs

/// One scripted answer of a ``SimulatedOnePassword`` to one access request.
///
/// Printing an answer shows its kind and entry count, never the references it grants.
@nonexhaustive
public indirect enum SimulatedOnePasswordAnswer: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Grants `entries` (state `resolved`), writing each reference in `shape`.
    case grant([SimulatedOnePasswordEntry], shape: SimulatedOnePasswordReferenceShape = .object)
    /// Answers with a grant in `state` and no entries (`pending`, `denied`, `failed`, `expired`).
    case grantInState(AccessGrant.State)
    /// The person declines: the extension reports the `declined` error.
    case decline
    /// The extension fails with `code` (`requestDecodeFailure`, `missingRequest`,
    /// `unsupportedVersion`, `internalError`).
    case fail(AccessRequestErrorCode)
    /// The extension fails with an error the protocol does not name (reported as is, unread).
    case failUnrecognized(domain: String, number: Int)
    /// The extension fails with an `NSError` of `domain` and `code`, read through the
    /// simulator's table as the Apple adapter reads the sheet's error: a domain ending in
    /// `.OnePasswordAccessRequestError` with a code 0...4 is one of the protocol's errors.
    case failBridged(domain: String, code: Int)
    /// The person closes the sheet without choosing 1Password.
    case closeWithoutChoosing
    /// Another activity completes and returns nothing.
    case completeWithoutGrant
    /// The extension completes with exactly these bytes as the grant attachment.
    case grantBytes([UInt8])
    /// Nothing ever comes back: the presentation lasts until its task is cancelled.
    case neverAnswer
    /// `answer`, after `delay` of simulated time.
    case after(Duration, SimulatedOnePasswordAnswer)

    /// A summary without references.
    public var description: String { summary }
    /// A summary without references.
    public var debugDescription: String { summary }
    /// Hides the references from `dump` and debuggers.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }

    var summary: String {
        switch self {
        case .grant(let entries, let shape): "grant (\(entries.count) entries, \(shape) references)"
        case .grantInState(let state): "grant in state \(state)"
        case .decline: "decline"
        case .fail(let code): "fail with \(code)"
        case .failUnrecognized(let domain, let number): "fail with \(domain) \(number)"
        case .failBridged(let domain, let code): "fail with bridged \(domain) \(code)"
        case .closeWithoutChoosing: "close without choosing"
        case .completeWithoutGrant: "complete without a grant"
        case .grantBytes(let bytes): "grant bytes (\(bytes.count))"
        case .neverAnswer: "never answer"
        case .after(let delay, let answer): "after \(delay): \(answer.summary)"
        }
    }
}
