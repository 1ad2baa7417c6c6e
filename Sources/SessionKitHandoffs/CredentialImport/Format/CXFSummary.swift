/// Counts of what a ``CXFDocument`` holds, for logs and progress: no names, no values.
public struct CXFSummary: Sendable, Hashable, CustomStringConvertible {
    /// Accounts.
    public var accounts: Int
    /// Items across all accounts.
    public var items: Int
    /// Typed credentials by CXF type name (`basic-auth`, `passkey`, …).
    public var credentials: [String: Int]
    /// Credentials of unknown types, kept opaque.
    public var opaque: Int
    /// Accounts, items, credentials and header members kept whole because they break the rules.
    public var undecodable: Int
    /// Departures from the format that were accepted.
    public var leniencies: Int

    /// Creates a summary.
    public init(accounts: Int, items: Int = 0, credentials: [String: Int] = [:], opaque: Int = 0, undecodable: Int = 0, leniencies: Int = 0)
    {
        self.accounts = accounts
        self.items = items
        self.credentials = credentials
        self.opaque = opaque
        self.undecodable = undecodable
        self.leniencies = leniencies
    }

    /// `basic-auth` credentials.
    public var basicAuth: Int { credentials["basic-auth", default: 0] }
    /// `passkey` credentials.
    public var passkeys: Int { credentials["passkey", default: 0] }
    /// `totp` credentials.
    public var totp: Int { credentials["totp", default: 0] }
    /// `note` credentials.
    public var notes: Int { credentials["note", default: 0] }

    /// For example `1 account, 4 items: basic-auth 1, passkey 1, totp 1; 1 opaque, 1 undecodable, 0 leniencies`.
    public var description: String {
        let plural = { (count: Int, noun: String) in "\(count) \(noun)\(count == 1 ? "" : "s")" }
        let typed = credentials.keys.sorted().map { "\($0) \(credentials[$0] ?? 0)" }.joined(separator: ", ")
        return "\(plural(accounts, "account")), \(plural(items, "item")): \(typed.isEmpty ? "no typed credentials" : typed); "
            + "\(opaque) opaque, \(undecodable) undecodable, \(leniencies) \(leniencies == 1 ? "leniency" : "leniencies")"
    }
}
