import Foundation
import SessionKitJOSE
import Testing

/// Keys and token builders shared by the tests. Keys are generated once per test process.
enum TestKeys {
    /// The provider's signing key, published as `kid` "k1".
    static let provider: RSAPrivateKey? = try? RSAPrivateKey.generate()
    /// A second provider key, published as `kid` "k2" (key rotation).
    static let rotated: RSAPrivateKey? = try? RSAPrivateKey.generate()
    /// A key the provider never published.
    static let attacker: RSAPrivateKey? = try? RSAPrivateKey.generate()

    /// The key, or a recorded test failure when generation failed.
    static func required(_ key: RSAPrivateKey?) throws -> RSAPrivateKey {
        try #require(key)
    }
}

/// Builds signed ID tokens with full control over header and claims.
struct TokenFactory {
    let key: RSAPrivateKey
    let now: Date

    static let issuer = "https://api.1pass.dev"
    static let clientID = "client-123"
    static let nonce = "n-0S6_WzA2Mj"
    static let accessToken = "jHkWEdUXMU1BwAsC4vtUsZwnNvTIxEl0z9K3vx5KF0Y"

    /// Claims of a token that passes every check at `now`.
    func standardClaims() -> [String: Any] {
        let seconds = Int(now.timeIntervalSince1970)
        return [
            "iss": Self.issuer, "sub": "user-1", "aud": Self.clientID, "exp": seconds + 3600, "iat": seconds,
            "nonce": Self.nonce, "at_hash": AccessTokenHash.compute(for: Self.accessToken),
        ]
    }

    func expectations(nonce: String? = TokenFactory.nonce, accessToken: String? = TokenFactory.accessToken)
        -> IDTokenExpectations
    {
        IDTokenExpectations(issuer: Self.issuer, clientID: Self.clientID, nonce: nonce, accessToken: accessToken)
    }

    static func json(_ object: [String: Any]) -> [UInt8] {
        // Sorted keys keep the bytes deterministic; no test depends on member order.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return [UInt8](data)
    }

    /// A token signed with the standard header and `kid`.
    func token(claims: [String: Any], keyID: String? = "k1", signer: RSAPrivateKey? = nil) throws -> String {
        try CompactJWS.signRS256(payload: Self.json(claims), keyID: keyID, key: signer ?? key)
    }

    /// A token signed under exactly these header bytes.
    func token(rawHeader: String, claims: [String: Any], signer: RSAPrivateKey? = nil) throws -> String {
        try CompactJWS.signRS256(headerJSON: Array(rawHeader.utf8), payload: Self.json(claims), key: signer ?? key)
    }

    /// A token signed under this header object.
    func token(header: [String: Any], claims: [String: Any], signer: RSAPrivateKey? = nil) throws -> String {
        try CompactJWS.signRS256(headerJSON: Self.json(header), payload: Self.json(claims), key: signer ?? key)
    }
}

/// HMAC-SHA256 (RFC 2104) over the library's SHA-256, to forge HS256 tokens in attack tests.
enum HMACSHA256 {
    static func mac(key: [UInt8], message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? SHA256Digest.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        let inner = SHA256Digest.hash(block.map { $0 ^ 0x36 } + message)
        return SHA256Digest.hash(block.map { $0 ^ 0x5C } + inner)
    }
}
