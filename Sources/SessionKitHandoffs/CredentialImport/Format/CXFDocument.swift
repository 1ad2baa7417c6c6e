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
