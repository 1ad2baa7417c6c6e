/// Counts of what a ``CXFDocument`` holds, for logs and progress: no names, no values.
public struct CXFSummary: Sendable, Hashable, CustomStringConvertible {
    /// Accounts.
    public var accounts: Int
    /// Items across all accounts.
    public var items: Int = 0
    /// `basic-auth` credentials.
    public var basicAuth: Int = 0
    /// `passkey` credentials.
    public var passkeys: Int = 0
    /// `totp` credentials.
    public var totp: Int = 0
    /// `note` credentials.
    public var notes: Int = 0
    /// Credentials kept opaque.
    public var opaque: Int = 0

    /// Creates a summary.
    public init(accounts: Int, items: Int = 0, basicAuth: Int = 0, passkeys: Int = 0, totp: Int = 0, notes: Int = 0, opaque: Int = 0) {
        self.accounts = accounts
        self.items = items
        self.basicAuth = basicAuth
        self.passkeys = passkeys
        self.totp = totp
        self.notes = notes
        self.opaque = opaque
    }

    /// For example `1 account, 4 items: 1 login, 1 passkey, 1 TOTP, 1 note, 1 opaque`.
    public var description: String {
        let plural = { (count: Int, noun: String) in "\(count) \(noun)\(count == 1 ? "" : "s")" }
        return "\(plural(accounts, "account")), \(plural(items, "item")): \(plural(basicAuth, "login")), "
            + "\(plural(passkeys, "passkey")), \(totp) TOTP, \(plural(notes, "note")), \(opaque) opaque"
    }
}
