public import SessionKitCore

/// A time-based one-time password generator (CXF `totp`, RFC 6238).
public struct CXFTOTPCredential: Sendable, Hashable {
    /// The HMAC algorithm the codes use.
    @nonexhaustive
    public enum Algorithm: String, Sendable, Hashable, CaseIterable {
        /// HMAC-SHA-1 (the common default).
        case sha1
        /// HMAC-SHA-256.
        case sha256
        /// HMAC-SHA-512.
        case sha512
    }

    /// The shared secret, Base32 (RFC 4648 §6).
    public var secret: Secret
    /// The time step in seconds.
    public var period: Int
    /// The number of digits per code.
    public var digits: Int
    /// The HMAC algorithm.
    public var algorithm: Algorithm
    /// The account the codes are for, if known.
    public var username: String?
    /// Who issued the secret, if known.
    public var issuer: String?

    /// Creates a TOTP credential.
    public init(secret: Secret, period: Int, digits: Int, algorithm: Algorithm, username: String? = nil, issuer: String? = nil) {
        self.secret = secret
        self.period = period
        self.digits = digits
        self.algorithm = algorithm
        self.username = username
        self.issuer = issuer
    }
}
