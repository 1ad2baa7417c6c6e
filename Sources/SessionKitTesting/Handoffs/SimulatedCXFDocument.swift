public import SessionKitHandoffs
import SessionKitJOSE

/// Credential Exchange Format data to serve from a ``SimulatedCredentialExporter``: items of the
/// kinds a session-owning app meets, written as an exporter writes them.
///
/// ```swift
/// let data = SimulatedCXFDocument.sample().jsonBytes()
/// ```
///
/// Printing one shows the version and the items' titles and credential kinds, never a value.
public struct SimulatedCXFDocument: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// One credential of an item.
    @nonexhaustive
    public enum Credential: Sendable, Hashable {
        /// `basic-auth`; the item's scope lists `urls` and Android `apps`.
        case login(username: String, password: String, urls: [String], apps: [String])
        /// `passkey` for `relyingPartyID`.
        case passkey(relyingPartyID: String, username: String)
        /// `totp` with a Base32 `secret` and `algorithm` (an unknown name makes it opaque).
        case totp(secret: String, issuer: String, algorithm: String)
        /// `note`.
        case note(String)
        /// A credential of `type` with one concealed member, `number` (for `credit-card`, the
        /// card number; for a type from a later version, kept opaque).
        case other(type: String)
        /// A credential written exactly as this JSON object text, for data that breaks the
        /// format's rules the way a real exporter might.
        case raw(String)
    }

    /// One item: a title and its credentials.
    public struct Item: Sendable, Hashable {
        /// The item's title.
        public var title: String
        /// The item's credentials.
        public var credentials: [Credential]

        /// Creates an item.
        public init(title: String, credentials: [Credential]) {
            self.title = title
            self.credentials = credentials
        }
    }

    /// The format version written in the header.
    public var version: CXFVersion
    /// The single account's items.
    public var items: [Item]

    /// Creates a document with one account holding `items`.
    public init(version: CXFVersion = .v1, items: [Item]) {
        self.version = version
        self.items = items
    }

    /// A login (with URLs and an Android app), a passkey, a TOTP, a note and a credit card, each
    /// as its own item.
    public static func sample(version: CXFVersion = .v1) -> SimulatedCXFDocument {
        SimulatedCXFDocument(
            version: version,
            items: [
                Item(
                    title: "Example login",
                    credentials: [
                        .login(
                            username: "alice@example.com", password: "simulated-password-7f3a",
                            urls: ["https://example.com/login"], apps: ["com.example.android"])
                    ]),
                Item(title: "Example passkey", credentials: [.passkey(relyingPartyID: "example.com", username: "alice")]),
                Item(
                    title: "Example one-time codes",
                    credentials: [.totp(secret: "KNUW25LMMF2GKZBNORXXI4BNONSWG4TF", issuer: "Example", algorithm: "sha1")]),
                Item(title: "Recovery codes", credentials: [.note("simulated-recovery-code-4242")]),
                Item(title: "Example card", credentials: [.other(type: "credit-card")]),
            ])
    }

    /// Version, titles and credential kinds.
    public var description: String {
        let items = items.map { item in "\(item.title): \(item.credentials.map(Self.kind).joined(separator: ", "))" }
        return "SimulatedCXFDocument(\(version); \(items.joined(separator: "; ")))"
    }

    /// Version, titles and credential kinds.
    public var debugDescription: String { description }

    /// Version and item count only.
    public var customMirror: Mirror {
        Mirror(self, children: ["version": version, "itemCount": items.count], displayStyle: .struct)
    }

    private static func kind(_ credential: Credential) -> String {
        switch credential {
        case .login: "basic-auth"
        case .passkey: "passkey"
        case .totp: "totp"
        case .note: "note"
        case .other(let type): type
        case .raw: "raw"
        }
    }

    /// The document as UTF-8 JSON.
    public func jsonBytes() -> [UInt8] {
        let items = self.items.enumerated().map { index, item in Self.itemJSON(item, index: index) }
        let json =
            "{\"version\":{\"major\":\(version.major),\"minor\":\(version.minor)},\"exporterRpId\":\"exporter.example\","
            + "\"exporterDisplayName\":\"Simulated Exporter\",\"timestamp\":1767225600,\"accounts\":[{"
            + "\"id\":\"\(Base64URL.encode(Array("account-1".utf8)))\",\"username\":\"alice\",\"email\":\"alice@example.com\","
            + "\"fullName\":\"Alice Example\",\"collections\":[],\"items\":[\(items.joined(separator: ","))]}]}"
        return Array(json.utf8)
    }

    private static func itemJSON(_ item: Item, index: Int) -> String {
        var scope = ""
        for case .login(_, _, let urls, let apps) in item.credentials {
            let appList = apps.map { "{\"bundleId\":\(JSONWriter.quoted($0))}" }.joined(separator: ",")
            scope = ",\"scope\":{\"urls\":[\(urls.map(JSONWriter.quoted).joined(separator: ","))],\"androidApps\":[\(appList)]}"
        }
        let credentials = item.credentials.map(credentialJSON).joined(separator: ",")
        return "{\"id\":\"\(Base64URL.encode(Array("item-\(index + 1)".utf8)))\",\"creationAt\":1767225600,"
            + "\"modifiedAt\":1767225600,\"title\":\(JSONWriter.quoted(item.title))\(scope),\"credentials\":[\(credentials)]}"
    }

    private static func field(_ type: String, _ value: String) -> String {
        "{\"fieldType\":\"\(type)\",\"value\":\(JSONWriter.quoted(value))}"
    }

    private static func credentialJSON(_ credential: Credential) -> String {
        switch credential {
        case .login(let username, let password, _, _):
            return "{\"type\":\"basic-auth\",\"username\":\(field("string", username)),\"password\":\(field("concealed-string", password))}"
        case .passkey(let relyingPartyID, let username):
            let key = Base64URL.encode(Array("simulated-pkcs8-private-key-\(username)".utf8))
            return "{\"type\":\"passkey\",\"credentialId\":\"\(Base64URL.encode(Array("credential-\(username)".utf8)))\","
                + "\"rpId\":\(JSONWriter.quoted(relyingPartyID)),\"username\":\(JSONWriter.quoted(username)),"
                + "\"userDisplayName\":\(JSONWriter.quoted(username)),\"userHandle\":\"\(Base64URL.encode(Array("user-\(username)".utf8)))\","
                + "\"key\":\"\(key)\"}"
        case .totp(let secret, let issuer, let algorithm):
            return "{\"type\":\"totp\",\"secret\":\(JSONWriter.quoted(secret)),\"period\":30,\"digits\":6,"
                + "\"algorithm\":\(JSONWriter.quoted(algorithm)),\"issuer\":\(JSONWriter.quoted(issuer))}"
        case .note(let text):
            return "{\"type\":\"note\",\"content\":\(field("string", text))}"
        case .other(let type):
            return "{\"type\":\(JSONWriter.quoted(type)),\"number\":{\"fieldType\":\"concealed-string\",\"value\":\"4111111111111111\"}}"
        case .raw(let json):
            return json
        }
    }
}
