import SessionKit

/// Where a `lifecycle-loop` child was when it died, read from the lines it printed, and which
/// stored records that allows.
///
/// A line is printed only after its step finished, and "begin …" before the step starts, so the
/// last line bounds what the store may hold: a session once sign-in or a refresh completed, a
/// journal only after a sign-out or deletion began.
enum ChildPhase: Equatable, CustomStringConvertible {
    case signedOut
    case signingIn
    case active
    case signingOut
    case deleting

    /// The phase after `line`; `nil` for a line that reports a failure or is not understood.
    func after(_ line: String) -> ChildPhase? {
        if line.hasPrefix("io ") { return self }
        switch line {
        case "restored active", "signed-in", "begin refresh": return .active
        case "restored signedOut", "signed-out", "deleted": return .signedOut
        case "begin sign-in": return .signingIn
        case "begin sign-out": return .signingOut
        case "begin delete": return .deleting
        default: return line.hasPrefix("ok ") ? .active : nil
        }
    }

    /// Whether a child killed in this phase may have left `record`.
    func allows(_ record: CredentialRecord) -> Bool {
        switch self {
        case .signedOut: record.session == nil && record.pendingOperation == nil
        case .signingIn: record.pendingOperation == nil
        case .active: record.session != nil && record.pendingOperation == nil
        case .signingOut: record.pendingOperation == nil || record.pendingOperation == .signOut
        case .deleting: record.pendingOperation == nil || record.pendingOperation == .deleteAccount
        }
    }

    var description: String {
        switch self {
        case .signedOut: "signed out"
        case .signingIn: "signing in"
        case .active: "active"
        case .signingOut: "signing out"
        case .deleting: "deleting"
        }
    }
}

extension CredentialRecord {
    /// The record's shape, without a secret.
    var shape: String {
        let session = self.session.map { "session(rotation \($0.rotation), pending \($0.pendingRefreshToken != nil))" } ?? "no session"
        let operation = pendingOperation.map { "\($0)" } ?? "no journal"
        return "\(session), \(operation), \(pendingRevocations.count) queued revocations"
    }
}
