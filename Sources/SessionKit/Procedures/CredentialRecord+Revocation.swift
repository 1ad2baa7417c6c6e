import SessionKitCore

/// The store-side rules of the revocation queue: which tokens go into it, and which stored
/// session a late or superseded result clears. Pure, so every rule is tested on a record value.
extension CredentialRecord {
    /// A new sign-in starts while a sign-out still waits for the provider: the stored session's
    /// refresh tokens move to the revocation queue (unusable from now on), and the journaled
    /// sign-out gives way. Returns whether anything was queued.
    @discardableResult
    mutating func deferSessionRevocation() -> Bool {
        let queued = [session?.pendingRefreshToken, session?.refreshToken].compactMap { $0 }
        pendingRevocations += queued
        session = nil
        pendingOperation = nil
        return !queued.isEmpty
    }

    /// Tokens that arrived after the session moved on (a refresh or exchange that finished after a
    /// sign-out or another sign-in): never current. The stored session is cleared only when it is
    /// exactly theirs and no journaled sign-out or deletion owns it (that one revokes it itself);
    /// their refresh token is queued for revocation. Returns whether anything was queued.
    @discardableResult
    mutating func discardLate(refreshToken: Secret?, accessToken: Secret) -> Bool {
        if pendingOperation == nil, let session,
            refreshToken.map({ session.refreshToken == $0 }) ?? (session.accessToken == accessToken)
        {
            self.session = nil
        }
        // Without a refresh token nothing outlives the access token, which is never handed out.
        guard let refreshToken, !pendingRevocations.contains(refreshToken) else { return false }
        pendingRevocations.append(refreshToken)
        return true
    }

    /// The stored session is wiped after a confirmed deletion: its refresh tokens are queued for
    /// revocation, and the journal is cleared.
    mutating func wipeAfterDeletion() {
        if let current = session {
            pendingRevocations += [current.pendingRefreshToken, current.refreshToken].compactMap { $0 }
        }
        session = nil
        pendingOperation = nil
    }

    /// A verified sign-in is stored; an earlier session's refresh token is queued for revocation.
    mutating func storeSignedIn(_ stored: StoredSession) {
        if let old = session?.refreshToken { pendingRevocations.append(old) }
        session = stored
    }
}
