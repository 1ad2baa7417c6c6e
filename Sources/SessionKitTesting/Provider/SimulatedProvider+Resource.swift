import Foundation
import SessionKitJOSE

extension SimulatedProvider {
    /// Makes the resource server (``SimulatedProviderConfiguration/resourceServer``) demand a new
    /// DPoP nonce: every proof from now on must carry it, and one that does not (or carries the
    /// previous one) is answered `401` with `use_dpop_nonce` and the new `DPoP-Nonce` (RFC 9449 §9).
    public func demandResourceNonce() {
        state.withLock { $0.resource.nonce = try? RandomToken.generate(byteCount: 16) }
    }

    /// Makes the resource server refuse the next `times` requests with `401` `invalid_token`,
    /// whatever token they present: a token the resource server stopped trusting before its expiry.
    public func rejectResourceTokens(times: Int = 1) {
        guard times > 0 else { return }
        state.withLock { $0.resource.scriptedTokenRejections += times }
    }

    /// Makes the resource server refuse every access token issued so far with `401`
    /// `invalid_token`, though none has expired; tokens issued later are accepted.
    public func distrustIssuedAccessTokens() {
        state.withLock { $0.resource.distrusted.formUnion($0.accessTokens.keys) }
    }

    /// How many requests the resource server received.
    public var resourceRequestCount: Int {
        state.withLock { $0.resource.requestCount }
    }

    /// How many requests the resource server answered with `200`.
    public var resourceAcceptedCount: Int {
        state.withLock { $0.resource.acceptedCount }
    }
}
