public import SessionKitCore

/// An extension of an account, collection, item, credential or field (CXF `Extension`): its
/// `name` and the whole object, kept as JSON.
///
/// Extensions may hold anything, so the JSON is a `Secret`.
public struct CXFExtension: Sendable, Hashable {
    /// The extension's `name`, such as `shared`.
    public var name: String
    /// The whole extension object as compact JSON text.
    public var json: Secret

    /// Creates an extension.
    public init(name: String, json: Secret) {
        self.name = name
        self.json = json
    }
}
