/// A grant's entries matched to the entries the app asked for, by `entryId`.
///
/// 1Password may answer in any order, leave requested entries out, and add logins the person
/// chose beyond the request (entries without an `entryId`); position means nothing.
public struct AccessGrantMatch: Sendable, Hashable, CustomStringConvertible {
    /// The granted credential for each requested entry id that was granted.
    public var references: [String: CredentialReference]
    /// Requested entry ids the grant does not answer, in the order they were requested.
    public var missingEntryIDs: [String]
    /// Logins the person added beyond the request (entries without an `entryId`), in grant order.
    public var extraLogins: [CredentialReference]
    /// Entries whose `entryId` the app did not ask for.
    public var unrequested: [String: CredentialReference]

    /// Creates a match.
    public init(
        references: [String: CredentialReference], missingEntryIDs: [String], extraLogins: [CredentialReference],
        unrequested: [String: CredentialReference]
    ) {
        self.references = references
        self.missingEntryIDs = missingEntryIDs
        self.extraLogins = extraLogins
        self.unrequested = unrequested
    }

    /// The credential granted for requested entry `entryID`, if any.
    public subscript(entryID: String) -> CredentialReference? {
        references[entryID]
    }

    /// Counts only.
    public var description: String {
        "AccessGrantMatch(matched: \(references.count), missing: \(missingEntryIDs.count), extra: \(extraLogins.count), "
            + "unrequested: \(unrequested.count))"
    }
}

extension AccessGrant {
    /// Matches the granted entries to `requestedEntryIDs` by `entryId`, never by position.
    public func match(requestedEntryIDs: [String]) -> AccessGrantMatch {
        let requested = Set(requestedEntryIDs)
        var references: [String: CredentialReference] = [:]
        var extra: [CredentialReference] = []
        var unrequested: [String: CredentialReference] = [:]
        for entry in resolved {
            guard let id = entry.entryID else {
                extra.append(entry.reference)
                continue
            }
            if requested.contains(id) {
                references[id] = entry.reference
            } else {
                unrequested[id] = entry.reference
            }
        }
        var missing: [String] = []
        var listed = Set<String>()
        for id in requestedEntryIDs where references[id] == nil && listed.insert(id).inserted {
            missing.append(id)
        }
        return AccessGrantMatch(references: references, missingEntryIDs: missing, extraLogins: extra, unrequested: unrequested)
    }
}
