/// One editable field of a credential (CXF `EditableField`): its value, and the exporter's id
/// and label for it.
///
/// Concealed values (passwords, note contents) are `Secret`s, so printing a field never shows
/// them.
public struct CXFField<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The field's value.
    public var value: Value
    /// The exporter's opaque id for the field (base64url), if it gave one.
    public var id: String?
    /// A label for the field, possibly the person's own.
    public var label: String?

    /// Creates a field.
    public init(value: Value, id: String? = nil, label: String? = nil) {
        self.value = value
        self.id = id
        self.label = label
    }
}
