/// One editable field of a credential (CXF `EditableField`): its value, its declared type, and
/// the exporter's id, label and extensions for it.
///
/// Concealed values (passwords, card numbers, note contents) are `Secret`s, so printing a field
/// never shows them.
public struct CXFField<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The field's value, as text in the form its ``fieldType`` names.
    public var value: Value
    /// The field's declared `fieldType`.
    public var fieldType: CXFFieldType
    /// The exporter's opaque id for the field (base64url), if it gave one.
    public var id: String?
    /// A label for the field, possibly the person's own.
    public var label: String?
    /// The field's extensions, if any.
    public var extensions: [CXFExtension]

    /// Creates a field.
    public init(value: Value, fieldType: CXFFieldType = .string, id: String? = nil, label: String? = nil, extensions: [CXFExtension] = []) {
        self.value = value
        self.fieldType = fieldType
        self.id = id
        self.label = label
        self.extensions = extensions
    }
}
