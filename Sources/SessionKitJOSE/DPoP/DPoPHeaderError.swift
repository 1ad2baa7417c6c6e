/// Why a DPoP-related header field (`DPoP-Nonce`, `WWW-Authenticate`) was refused. No case carries
/// any of the field's bytes, so the error is safe to log.
@nonexhaustive
public enum DPoPHeaderError: Error, Sendable, Equatable {
    /// The value does not follow the field's grammar.
    case malformed
    /// The value is longer than this client accepts.
    case tooLong
}
