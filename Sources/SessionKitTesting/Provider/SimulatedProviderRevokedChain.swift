/// A grant (the chain of refresh tokens issued from one authorization) that a ``SimulatedProvider`` revoked.
public struct SimulatedProviderRevokedChain: Sendable, Equatable {
    /// Why a chain was revoked.
    @nonexhaustive
    public enum Reason: String, Sendable, Equatable {
        /// A retired refresh token of the chain was presented again.
        case refreshTokenReuse
        /// An authorization code was presented a second time (RFC 6749 §10.5).
        case authorizationCodeReuse
        /// A token of the chain was revoked through the revocation endpoint (RFC 7009).
        case revocation
        /// The app was disconnected from the account.
        case disconnect
        /// The test revoked it through ``SimulatedProvider/revokeAllGrants(of:)``.
        case administrative
    }

    /// The subject the chain belonged to.
    public var subject: String
    /// The client the chain was issued to.
    public var clientID: String
    /// Why it was revoked.
    public var reason: Reason

    /// Creates a record.
    public init(subject: String, clientID: String, reason: Reason) {
        self.subject = subject
        self.clientID = clientID
        self.reason = reason
    }
}
