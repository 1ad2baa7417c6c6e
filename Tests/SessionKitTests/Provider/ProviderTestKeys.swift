import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting

/// Signing keys, key sets and id_tokens for provider-layer tests, built directly with SessionKitJOSE.
struct ProviderTestKeys {
    static let issuer = "https://id.example.com"
    static let clientID = "app-client"

    let signing: RSAPrivateKey
    let rotated: RSAPrivateKey
    let stranger: RSAPrivateKey

    init() throws {
        // Shared per process: generating 2048-bit keys takes a noticeable fraction of a second.
        let keys = try SimulatedProviderKeys.shared(count: 3)
        signing = keys[0]
        rotated = keys[1]
        stranger = keys[2]
    }

    /// A JWKS response body publishing `keys` under their `kid`s.
    static func jwksBody(_ keys: [(kid: String, key: RSAPrivateKey)]) -> Data {
        Data(JWKS(keys: keys.map { $0.key.publicJWK(keyID: $0.kid) }).jsonData())
    }

    /// An RS256 id_token with the usual claims, valid at `now`, overridable claim by claim.
    static func idToken(
        key: RSAPrivateKey, kid: String?, now: Date, subject: String = "alice", issuer: String = issuer,
        audience: [String] = [clientID], nonce: String? = nil, extra: [String: Any] = [:]
    ) throws -> String {
        var claims: [String: Any] = [
            "iss": issuer, "sub": subject, "aud": audience.count == 1 ? audience[0] as Any : audience as Any,
            "iat": Int(now.timeIntervalSince1970), "exp": Int(now.timeIntervalSince1970) + 3600,
        ]
        if audience.count > 1 { claims["azp"] = clientID }
        if let nonce { claims["nonce"] = nonce }
        claims.merge(extra) { _, new in new }
        let payload = try JSONSerialization.data(withJSONObject: claims, options: [.sortedKeys])
        return try CompactJWS.signRS256(payload: Array(payload), keyID: kid, key: key)
    }

    /// A configuration on the test issuer with every endpoint, revocation and disconnect included.
    static func configuration(revocation: Bool = true, disconnect: Bool = true) throws -> ProviderConfiguration {
        try ProviderConfiguration(
            issuer: issuer, clientID: clientID, redirectURI: URL(string: "com.example.app:/oauth/callback")!,
            scopes: ["openid", "profile:basic", "email"],
            authorizationEndpoint: URL(string: "https://id.example.com/oauth/authorize")!,
            tokenEndpoint: URL(string: "https://id.example.com/oauth/token")!,
            jwksURI: URL(string: "https://id.example.com/.well-known/jwks.json")!,
            revocationEndpoint: revocation ? URL(string: "https://id.example.com/oauth/revoke")! : nil,
            disconnectEndpoint: disconnect ? URL(string: "https://id.example.com/api/v1/me/connected_apps/app-client")! : nil)
    }
}
