/// Why authorization request options were refused, when they are built or rendered.
///
/// Cases name the rule and the parameter, never a parameter's value (a hint can be personal data,
/// an extra parameter can carry anything).
@nonexhaustive
public enum AuthorizationRequestOptionsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// An extra parameter names one the library sets itself (`client_id`, `redirect_uri`,
    /// `response_type`, `scope`, `state`, `nonce`, `code_challenge*`): letting an app set it would
    /// undo PKCE, CSRF or replay protection, or send the provider somewhere else.
    case reservedParameter(String)
    /// An extra parameter names one that has a typed option (`prompt`, `max_age`, `resource`, …);
    /// set it there, so the checks that go with it (`auth_time`, `acr`) are made.
    case typedParameter(String)
    /// An extra parameter with an empty name.
    case emptyParameterName
    /// `prompt` holds `none` with another value (OpenID Connect Core §3.1.2.1 makes that an error),
    /// also when the offline-access policy adds `consent`.
    case promptNoneWithOthers
    /// `max_age` is negative.
    case negativeMaxAge
    /// Essential `acr` values were asked for without any value.
    case essentialACRWithoutValues
    /// A resource indicator (RFC 8707 §2) that is not an absolute URI or has a fragment; the
    /// associated value is its position in ``AuthorizationRequestOptions/resources``.
    case invalidResource(index: Int)

    /// A short phrase naming the rule, e.g. `the parameter "state" is set by the library`.
    public var description: String {
        switch self {
        case .reservedParameter(let name): "the parameter \"\(name)\" is set by the library"
        case .typedParameter(let name): "the parameter \"\(name)\" has a typed option"
        case .emptyParameterName: "an extra parameter has an empty name"
        case .promptNoneWithOthers: "prompt=none cannot be combined with another prompt value"
        case .negativeMaxAge: "max_age must not be negative"
        case .essentialACRWithoutValues: "essential acr values need at least one value"
        case .invalidResource(let index): "resource indicator \(index) is not an absolute URI without a fragment"
        }
    }
}
