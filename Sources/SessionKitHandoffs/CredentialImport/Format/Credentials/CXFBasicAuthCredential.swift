public import SessionKitCore

/// A username and password (CXF `basic-auth`), for a web form or HTTP basic authentication.
///
/// Where it applies is the item's ``CXFItem/scope``. Both members are optional, as in the format.
public struct CXFBasicAuthCredential: Sendable, Hashable {
    /// The username, if the exporter had one.
    public var username: CXFField<String>?
    /// The password, if the exporter had one.
    public var password: CXFField<Secret>?

    /// Creates a credential.
    public init(username: CXFField<String>?, password: CXFField<Secret>?) {
        self.username = username
        self.password = password
    }
}
