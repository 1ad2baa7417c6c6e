/// 1Password's answer to an ``AccessRequest``: where the request stands and what was granted.
///
/// Decode one with ``decode(_:)``; match its entries to the ones the app asked for with
/// ``match(requestedEntryIDs:)``, never by position.
public struct AccessGrant: Sendable, Hashable, CustomStringConvertible {
    /// The uniform type identifier the grant JSON is registered under.
    public static let typeIdentifier = "com.1password.access-grant"

    /// Where an access request stands.
    @nonexhaustive
    public enum State: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Not decided yet (for example, waiting for an administrator).
        case pending
        /// Granted: ``AccessGrant/resolved`` lists the credentials.
        case resolved
        /// Refused.
        case denied
        /// 1Password could not complete it.
        case failed
        /// The request is no longer valid.
        case expired

        /// The wire name.
        public var description: String { rawValue }
    }

    /// One granted login.
    public struct Entry: Sendable, Hashable, CustomStringConvertible {
        /// The id of the requested entry this login answers; `nil` for a login the person added
        /// beyond the request.
        public var entryID: String?
        /// The granted credential.
        public var reference: CredentialReference

        /// Creates an entry.
        public init(entryID: String?, reference: CredentialReference) {
            self.entryID = entryID
            self.reference = reference
        }

        /// The entry id (not secret), never the reference.
        public var description: String {
            "Entry(entryID: \(entryID.map { "\"\($0)\"" } ?? "nil"), reference: <redacted>)"
        }
    }

    /// The request's path, as 1Password names it.
    public var path: String
    /// Where the request stands.
    public var state: State
    /// The granted logins, in 1Password's order (which means nothing: match by ``Entry/entryID``).
    public var resolved: [Entry]

    /// Creates a grant.
    public init(path: String, state: State, resolved: [Entry]) {
        self.path = path
        self.state = state
        self.resolved = resolved
    }

    /// State and entry count; neither the path nor any reference.
    public var description: String {
        "AccessGrant(state: \(state), entries: \(resolved.count))"
    }
}
