public import SessionKitCore

/// A group of fields the format has no type for (CXF `custom-fields`), such as a security
/// question and its answer.
///
/// Field values are `Secret`s whatever their declared type: a custom field may hold anything.
public struct CXFCustomFieldsCredential: Sendable, Hashable {
    /// The exporter's opaque id for the group (base64url), if it gave one.
    public var id: String?
    /// A label for the group.
    public var label: String?
    /// The fields, in the exporter's order; each keeps its declared ``CXFField/fieldType``.
    public var fields: [CXFField<Secret>]
    /// The group's extensions.
    public var extensions: [CXFExtension]

    /// Creates a group.
    public init(id: String? = nil, label: String? = nil, fields: [CXFField<Secret>], extensions: [CXFExtension] = []) {
        self.id = id
        self.label = label
        self.fields = fields
        self.extensions = extensions
    }
}
