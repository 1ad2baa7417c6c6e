public import Foundation

/// Exported credential data in the FIDO Alliance Credential Exchange Format (CXF): a header and
/// the accounts, each with items, each with credentials.
///
/// Apple's `ASExportedCredentialData` mirrors this structure. Decode one with
/// ``decode(_:supportedVersions:)``, which loses nothing: what breaks the format's rules is kept
/// whole in ``undecodable`` (and in each account's and item's), and every departure it accepted
/// is listed in ``leniencies``. Secret fields are `Secret` values, never printed.
public struct CXFDocument: Sendable, Hashable {
    /// The format version the data is written in.
    public var version: CXFVersion
    /// The exporting app, as a relying party identifier (empty when the exporter left it out).
    public var exporterRelyingPartyID: String
    /// The exporting app's display name (empty when the exporter left it out).
    public var exporterDisplayName: String
    /// When the export was made, if the exporter said.
    public var timestamp: Date?
    /// The exported accounts.
    public var accounts: [CXFAccount]
    /// Accounts that break the format's rules, kept whole with the reason, and header members
    /// that did (at path `exporterRpId`, `exporterDisplayName` or `timestamp`).
    public var undecodable: [CXFUndecoded]
    /// Departures from the format that were accepted because their meaning is unambiguous.
    public var leniencies: [CXFLeniency]

    /// Creates a document.
    public init(
        version: CXFVersion, exporterRelyingPartyID: String, exporterDisplayName: String, timestamp: Date?, accounts: [CXFAccount],
        undecodable: [CXFUndecoded] = [], leniencies: [CXFLeniency] = []
    ) {
        self.version = version
        self.exporterRelyingPartyID = exporterRelyingPartyID
        self.exporterDisplayName = exporterDisplayName
        self.timestamp = timestamp
        self.accounts = accounts
        self.undecodable = undecodable
        self.leniencies = leniencies
    }

    /// Every undecodable entry of the document, its accounts and their items, in document order.
    public var allUndecodable: [CXFUndecoded] {
        var entries = undecodable
        for account in accounts {
            entries += account.undecodable
            for item in account.items {
                for case .undecodable(let entry) in item.credentials { entries.append(entry) }
            }
        }
        return entries
    }

    /// How many accounts, items and credentials of each type the document holds.
    public var summary: CXFSummary {
        var summary = CXFSummary(accounts: accounts.count)
        summary.undecodable = allUndecodable.count
        summary.leniencies = leniencies.count
        for item in accounts.flatMap(\.items) {
            summary.items += 1
            for credential in item.credentials {
                switch credential {
                case .opaque: summary.opaque += 1
                case .undecodable: break
                default: summary.credentials[credential.type, default: 0] += 1
                }
            }
        }
        return summary
    }
}
