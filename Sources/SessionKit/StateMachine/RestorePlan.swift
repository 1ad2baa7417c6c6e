/// What restore found in the store.
enum RestorePlan<Tokens> {
    /// Nothing: the session stays signed out.
    case nothing
    /// A verified session, as it was stored: signed in at once, without the network; its access
    /// token is refreshed when it is due.
    case session(Tokens)
    /// A session whose stored record lacks what a signed-in stage needs (no access token kept):
    /// only a refresh can restore it.
    case incompleteSession
    /// A session written for another issuer or client: not this session's to restore.
    case foreignSession(StoredSessionMismatch)
    /// A session whose DPoP key is gone or is another key: left in the store, never used.
    case dpopKeyUnavailable(DPoPKeyLoss)
    /// A journaled sign-out or deletion: resume it.
    case pending(PendingOperation)
}

extension RestorePlan: Sendable where Tokens: Sendable {}
extension RestorePlan: Equatable where Tokens: Equatable {}

extension RestorePlan {
    /// The plan for what the store holds: a journaled operation first; a session only when it was
    /// written for this issuer and client; `tokens` turns a stored session into the verified tokens
    /// it was stored as, or `nil` when the record lacks what a signed-in stage needs.
    init(record: CredentialRecord, issuer: String, clientID: String, tokens: (StoredSession) -> Tokens?) {
        if let operation = record.pendingOperation {
            self = .pending(operation)
        } else if let session = record.session {
            if session.issuer != issuer {
                self = .foreignSession(.issuer)
            } else if !session.audience.contains(clientID) {
                self = .foreignSession(.client)
            } else if let restored = tokens(session) {
                self = .session(restored)
            } else {
                self = .incompleteSession
            }
        } else {
            self = .nothing
        }
    }
}
