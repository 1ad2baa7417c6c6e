/// How a ``SimulatedOnePassword`` writes credential references.
@nonexhaustive
public enum SimulatedOnePasswordReferenceShape: Sendable, Hashable, CustomStringConvertible {
    /// `{"reference": "<string>"}`, today's protocol.
    case object
    /// The plain string, as a later protocol version writes it.
    case plainString

    /// The shape's name.
    public var description: String {
        switch self {
        case .object: "object"
        case .plainString: "plain-string"
        }
    }
}
