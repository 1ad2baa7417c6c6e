/// Builds DPoP proofs (RFC 9449 §4.2) with one key: a compact JWS whose header carries
/// `typ` `dpop+jwt`, `alg` `ES256` and the public `jwk`, and whose claims are `jti`, `htm`, `htu`,
/// `iat`, and when they apply `ath` and `nonce`.
///
/// The header never changes for a key, so it is encoded once here; a proof then costs one claims
/// encoding, one random `jti` and one signature.
public struct DPoPProofSigner: Sendable {
    /// The key every proof is signed with.
    public let key: any DPoPSigningKey
    /// The key's RFC 7638 thumbprint (`jkt`), which a server binds tokens to.
    public let thumbprint: String
    /// `BASE64URL(header) || "."`, shared by every proof of this key.
    let headerPrefix: [UInt8]

    /// A signer for `key`.
    public init(key: any DPoPSigningKey) {
        self.key = key
        self.thumbprint = key.publicKey.thumbprint
        let jwk = key.publicKey
        // Members in a fixed order; base64url values need no escaping.
        let header =
            #"{"typ":"dpop+jwt","alg":"ES256","jwk":{"kty":"EC","crv":"P-256","x":""# + Base64URL.encode(jwk.x)
            + #"","y":""# + Base64URL.encode(jwk.y) + #""}}"#
        self.headerPrefix = Array((Base64URL.encode(Array(header.utf8)) + ".").utf8)
    }

    /// A proof for one request.
    ///
    /// - Parameters:
    ///   - method: the request's method (`htm`), e.g. `POST`.
    ///   - targetURI: the request's URI without query and fragment (`htu`), already normalised
    ///     by the caller.
    ///   - issuedAt: `iat`, seconds since 1970 on the server's clock as best known.
    ///   - accessToken: the access token the request presents, if any; its hash becomes `ath`.
    ///   - nonce: the latest `DPoP-Nonce` from this server, if it gave one.
    ///   - jti: a unique identifier; by default 16 bytes from the CSPRNG.
    /// - Returns: the proof, for the `DPoP` header field. It is a credential: never log it.
    public func proof(
        method: String, targetURI: String, issuedAt: Int64, accessToken: String? = nil, nonce: String? = nil,
        jti: String? = nil
    ) throws(CryptoError) -> String {
        let identifier: String
        if let jti {
            identifier = jti
        } else {
            identifier = Base64URL.encode(try SecureRandom.bytes(count: 16))
        }
        var claims = #"{"jti":"# + JSONWriter.quoted(identifier) + #","htm":"# + JSONWriter.quoted(method)
        claims += #","htu":"# + JSONWriter.quoted(targetURI) + #","iat":"# + String(issuedAt)
        if let accessToken { claims += #","ath":""# + DPoPProofSigner.accessTokenHash(accessToken) + #"""# }
        if let nonce { claims += #","nonce":"# + JSONWriter.quoted(nonce) }
        claims += "}"
        var signingInput = headerPrefix
        signingInput.append(contentsOf: Base64URL.encode(Array(claims.utf8)).utf8)
        let signature = try key.signES256(signingInput)
        signingInput.append(UInt8(ascii: "."))
        signingInput.append(contentsOf: Base64URL.encode(signature).utf8)
        return String(decoding: signingInput, as: UTF8.self)
    }

    /// `ath`: base64url (no padding) of the SHA-256 of the access token's ASCII bytes (RFC 9449 §4.2).
    public static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(SHA256Digest.hash(Array(accessToken.utf8)))
    }
}
