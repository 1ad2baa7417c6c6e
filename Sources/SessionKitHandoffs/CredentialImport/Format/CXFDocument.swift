import Foundation

/// Exported credential data in the FIDO Alliance Credential Exchange Format (CXF): a header and
/// the accounts, each with items, each with credentials.
///
/// Apple's `ASExportedCredentialData` mirrors this structure. Decode one strictly with
/// ``decode(_:supportedVersions:)``; secret fields are `Secret` values, never printed.
public struct CXFDocument: Sendable, Hashable {
    /// The format version the data is written in.
    public var version: CXFVersion
    /// The exporting app, as a relying party identifier.
    public var exporterRelyingPartyID: String
    /// The exporting app's display name.
    public var exporterDisplayName: String
    /// When the export was made.
    public var timestamp: Date
    /// The exported accounts.
    public var accounts: [CXFAccount]

    /// Creates a document.
    public init(version: CXFVersion, exporterRelyingPartyID: String, exporterDisplayName: String, timestamp: Date, accounts: [CXFAccount]) {
        self.version = version
        self.exporterRelyingPartyID = exporterRelyingPartyID
        self.exporterDisplayName = exporterDisplayName
        self.timestamp = timestamp
        self.accounts = accounts
    }

    /// How many accounts, items and credentials of each kind the document holds.
    public var summary: CXFSummary {
        var summary = CXFSummary(accounts: accounts.count)
        for item in accounts.flatMap(\.items) {
            summary.items += 1
            for credential in item.credentials {
                switch credential {
                case .basicAuth: summary.basicAuth += 1
                case .passkey: summary.passkeys += 1
                case .totp: summary.totp += 1
                case .note: summary.notes += 1
                case .opaque: summary.opaque += 1
                }
            }
        }
        return summary
    }
}

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
