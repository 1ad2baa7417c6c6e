public import Foundation

/// A protected resource the ``SimulatedProvider`` serves beside its own endpoints, for testing an
/// app's own requests (`Session.send(_:)`): `GET` at ``url`` answers with the
/// subject of the access token it is given, after checking it the way a resource server that
/// follows RFC 6750 and RFC 9449 §7 does.
///
/// A token is accepted while it is active (issued by the provider, not expired, its grant not
/// revoked). A DPoP-bound token must come as `Authorization: DPoP …` with a proof of the key it is
/// bound to, for this request's method and URL, within ``proofWindow`` of the provider's clock,
/// never seen before, with the token's `ath`, and with the resource's current nonce once one is
/// demanded (``SimulatedProvider/demandResourceNonce()``). An unbound token must come as `Bearer`.
/// Refusals are `401` with a `WWW-Authenticate` challenge naming the error (`invalid_token`,
/// `invalid_dpop_proof`, `use_dpop_nonce` with a `DPoP-Nonce`).
///
/// It lives at its own origin, apart from the issuer's, so a client's nonces for it and for the
/// authorization server are kept apart.
public struct SimulatedResourceServer: Sendable, Hashable {
    /// Where the resource is; any path at its origin answers.
    public var url: URL
    /// How far a proof's `iat` may lie from the provider's clock, either way.
    public var proofWindow: Duration

    /// A resource at `url` (by default `https://api.sim.1pass.test/v1/me`).
    public init(url: URL = URL(string: "https://api.sim.1pass.test/v1/me")!, proofWindow: Duration = .seconds(60)) {
        self.url = url
        self.proofWindow = proofWindow
    }
}
