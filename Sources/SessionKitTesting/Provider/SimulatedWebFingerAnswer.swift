/// How a ``SimulatedProvider``'s WebFinger endpoint answers (``SimulatedProvider/answerWebFinger(_:)``),
/// to play the misbehaviours of OpenID Connect Discovery §2's certification cases.
@nonexhaustive
public enum SimulatedWebFingerAnswer: Sendable, Hashable {
    /// The provider's own issuer, in a plain resource descriptor.
    case truth
    /// This `href` for the issuer relation instead of the provider's issuer (another issuer, an
    /// `http` URL).
    case issuer(String)
    /// The truth, with members no client knows beside it (RFC 7033 §4.4: they are ignored).
    case unknownMembers
    /// A descriptor with no issuer link.
    case noIssuerLink
}
