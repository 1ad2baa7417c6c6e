import Foundation
import SessionKit
import SessionKitJOSE

/// How the simulated provider enforces DPoP (RFC 9449) at its token endpoint.
///
/// With a value in ``SimulatedProviderConfiguration/dpop`` the provider checks every proof it is
/// sent (signature, `typ`, `alg`, `jwk`, `htm`, `htu`, `iat` window, `jti` replay, `nonce`),
/// binds the code to `dpop_jkt` and the refresh token to the proof's key, and answers with
/// `token_type` `DPoP`. A refresh token presented without its key's proof is refused.
public struct SimulatedProviderDPoP: Sendable, Hashable {
    /// Whether every proof must carry the provider's current nonce (RFC 9449 §8).
    public var requiresNonce: Bool
    /// How far a proof's `iat` may lie from the provider's clock, either way.
    public var proofWindow: Duration
    /// Whether a token request without a proof is refused (`invalid_dpop_proof`).
    public var requiresProof: Bool
    /// Whether a refresh refused with `use_dpop_nonce` spends its refresh token anyway, as a
    /// provider that uses the grant before it checks the nonce does: the retry with the nonce is
    /// then answered `invalid_grant`. Off by default (RFC 9449 §8 refuses before using the grant).
    public var spendsRefreshTokenOnNonceRefusal: Bool

    /// Enforcement with the given options; by default a nonce is required and proofs are
    /// accepted within 60 seconds of the provider's clock.
    public init(
        requiresNonce: Bool = true, proofWindow: Duration = .seconds(60), requiresProof: Bool = true,
        spendsRefreshTokenOnNonceRefusal: Bool = false
    ) {
        self.requiresNonce = requiresNonce
        self.proofWindow = proofWindow
        self.requiresProof = requiresProof
        self.spendsRefreshTokenOnNonceRefusal = spendsRefreshTokenOnNonceRefusal
    }
}

/// The server side of a DPoP proof check: what a provider that follows RFC 9449 §4.3 verifies.
struct SimulatedDPoPVerifier {
    enum Failure: Error, Equatable {
        /// The proof is not acceptable (`invalid_dpop_proof`).
        case invalidProof(String)
        /// The proof lacks the current nonce (`use_dpop_nonce`).
        case nonceRequired
    }

    /// Checks `proof` for `request` and returns the key's RFC 7638 thumbprint.
    static func verify(
        _ proof: String, method: String, url: URL, now: Date, window: Duration, nonce: String?, accessToken: String?,
        seen: inout Set<String>, keys: inout KeyCache
    ) throws(Failure) -> String {
        let parts = proof.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = try? Base64URL.decode(parts[0]),
            let claimsBytes = try? Base64URL.decode(parts[1]), let signature = try? Base64URL.decode(parts[2]),
            let header = try? JSONParser.parseObject(headerBytes), let claims = try? JSONParser.parseObject(claimsBytes)
        else { throw .invalidProof("the proof is not a compact JWS") }
        guard header["typ"]?.stringValue == "dpop+jwt" else { throw .invalidProof("typ is not dpop+jwt") }
        guard header["alg"]?.stringValue == "ES256" else { throw .invalidProof("alg is not ES256") }
        guard let jwk = header["jwk"]?.objectValue, jwk["d"] == nil, jwk["kty"]?.stringValue == "EC",
            jwk["crv"]?.stringValue == "P-256", let x = jwk["x"]?.stringValue, let y = jwk["y"]?.stringValue,
            let key = keys.key(x: x, y: y)
        else { throw .invalidProof("jwk is not a public P-256 key") }
        guard key.verifyES256(signature: signature, message: Array("\(parts[0]).\(parts[1])".utf8)) else {
            throw .invalidProof("the signature does not verify")
        }
        guard claims["htm"]?.stringValue == method else { throw .invalidProof("htm does not match") }
        guard let htu = claims["htu"]?.stringValue, let proofURL = URL(string: htu),
            DPoPTargetURI.normalized(proofURL) == DPoPTargetURI.normalized(url)
        else { throw .invalidProof("htu does not match") }
        guard case .number(let iat)? = claims["iat"],
            abs(iat - now.timeIntervalSince1970) <= window.simulatedProviderSeconds
        else { throw .invalidProof("iat is outside the accepted window") }
        if let accessToken {
            guard claims["ath"]?.stringValue == DPoPProofSigner.accessTokenHash(accessToken) else {
                throw .invalidProof("ath does not match the access token")
            }
        }
        if let nonce, claims["nonce"]?.stringValue != nonce { throw .nonceRequired }
        guard let jti = claims["jti"]?.stringValue, !jti.isEmpty else { throw .invalidProof("jti is missing") }
        guard seen.insert(jti).inserted else { throw .invalidProof("the proof was replayed") }
        return keys.thumbprint(x: x, y: y) ?? key.thumbprint
    }

    /// Proof keys built once, as a server keeps the keys it has checked: a client signs every
    /// proof with the same key, so its point is decoded and checked (on the curve, in the group)
    /// once and its thumbprint computed once. Bounded: full, it starts over.
    struct KeyCache {
        private var entries: [String: (key: P256PublicKey, thumbprint: String)] = [:]

        /// The key with these base64url coordinates, built and checked the first time; nil for
        /// coordinates that are not canonical base64url or do not name a P-256 point.
        mutating func key(x: String, y: String) -> P256PublicKey? {
            let name = x + "." + y
            if let entry = entries[name] { return entry.key }
            guard let xBytes = try? Base64URL.decode(x), let yBytes = try? Base64URL.decode(y),
                let key = try? P256PublicKey(x: xBytes, y: yBytes)
            else { return nil }
            if entries.count >= 64 { entries.removeAll() }
            entries[name] = (key, key.thumbprint)
            return key
        }

        /// The thumbprint of a key ``key(x:y:)`` built.
        func thumbprint(x: String, y: String) -> String? {
            entries[x + "." + y]?.thumbprint
        }
    }
}
