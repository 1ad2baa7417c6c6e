/// One account per store: a store holds one session, and nothing a session does writes over, or
/// hands out, another account's. Processes sharing a store (an app and its extensions) can each
/// sign in, so every write that starts from what the store holds asks this rule first.
enum OneAccountPerStore {
    /// Whether `stored` is the account `previous` belongs to: the same issuer, and the same `sub` or
    /// a merge claim (`canonical_sub`, `linked_subs`) linking the two.
    static func sameAccount(_ stored: StoredSession, _ previous: StoredSession) -> Bool {
        guard stored.issuer == previous.issuer else { return false }
        if stored.subject == previous.subject { return true }
        let storedEffective = stored.canonicalSubject ?? stored.subject
        let previousEffective = previous.canonicalSubject ?? previous.subject
        if storedEffective == previousEffective { return true }
        return (stored.linkedSubjects ?? []).contains(previous.subject) || (previous.linkedSubjects ?? []).contains(stored.subject)
    }

    /// The record a guest bootstrap writes its key into: `record` with `guest` as its session, or
    /// `nil` when the store holds a signed-in session (another process signed in meanwhile), which
    /// is not the guest's to replace.
    static func guestRecord(_ record: CredentialRecord, storing guest: StoredSession) -> CredentialRecord? {
        if let stored = record.session, stored.isGuest != true { return nil }
        var updated = record
        updated.session = guest
        return updated
    }
}
