import SessionKitJOSE

/// What an app hands to 1Password: `{"version": 1, "accessRequestReference": "<reference>"}`,
/// attached under ``typeIdentifier``.
///
/// 1Password (8.12.42 or later) offers its action extension in the share sheet for items of this
/// type and answers with an ``AccessGrant`` under ``AccessGrant/typeIdentifier``. Both types
/// conform to `public.json`; an app declares them in its Info.plist (see the README).
public struct AccessRequest: Sendable, Hashable, CustomStringConvertible {
    /// The uniform type identifier the request JSON is registered under.
    public static let typeIdentifier = "com.1password.access-request"
    /// The type both wire identifiers conform to.
    public static let conformsToTypeIdentifier = "public.json"
    /// The protocol version this library speaks.
    public static let protocolVersion = 1

    /// The reference, passed on unchanged.
    public let reference: AccessRequestReference

    /// A request for `reference`.
    public init(reference: AccessRequestReference) {
        self.reference = reference
    }

    /// The request as UTF-8 JSON, the bytes the share sheet item carries.
    ///
    /// The reference is written as a JSON string exactly as given; a JSON parser reads back the
    /// very same characters.
    public func jsonBytes() -> [UInt8] {
        let reference = JSONWriter.quoted(reference.secret.value)
        return Array("{\"version\":\(Self.protocolVersion),\"accessRequestReference\":\(reference)}".utf8)
    }

    /// Names the version only.
    public var description: String { "AccessRequest(version: \(Self.protocolVersion), reference: <redacted>)" }
}
