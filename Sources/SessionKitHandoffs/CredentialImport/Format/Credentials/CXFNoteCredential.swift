public import SessionKitCore

/// A free-text note (CXF `note`). Its content is treated as secret: people keep recovery codes
/// and PINs in notes.
public struct CXFNoteCredential: Sendable, Hashable {
    /// The note's text.
    public var content: CXFField<Secret>

    /// Creates a note.
    public init(content: CXFField<Secret>) {
        self.content = content
    }
}
