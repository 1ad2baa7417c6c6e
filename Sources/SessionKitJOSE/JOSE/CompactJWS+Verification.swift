extension CompactJWS {
    /// Verifies the JOSE layer of a token: parses it, requires `alg` RS256, selects the key by
    /// exact `kid` among the set's RS256 verification keys, and checks the signature. Claims are
    /// not looked at.
    ///
    /// Errors use the ID-token codes: `malformed` for any parse failure, `bad_signature` for
    /// another `alg` or a failed signature, `missing_kid`, `unknown_kid`. With
    /// `allowMissingKeyID`, a token without `kid` is checked against the set's only RS256 key;
    /// an empty set then gives `unknown_kid` (a refetch may help), several keys `missing_kid`.
    public static func verifyRS256(
        _ token: some StringProtocol, keys: JWKS, allowMissingKeyID: Bool = false
    ) throws(IDTokenError) -> DecodedJWS {
        let jws: DecodedJWS
        do {
            jws = try decode(token)
        } catch {
            throw .malformed
        }
        try verifyRS256(jws, keys: keys, allowMissingKeyID: allowMissingKeyID)
        return jws
    }

    /// The checks of ``verifyRS256(_:keys:allowMissingKeyID:)`` on an already decoded token.
    static func verifyRS256(_ jws: DecodedJWS, keys: JWKS, allowMissingKeyID: Bool) throws(IDTokenError) {
        guard jws.header.algorithm == "RS256" else { throw .badSignature }
        let key: RSAPublicKey
        if let keyID = jws.header.keyID {
            guard let found = keys.verificationKey(forKeyID: keyID) else { throw .unknownKeyID }
            key = found
        } else {
            guard allowMissingKeyID else { throw .missingKeyID }
            guard keys.verificationKeyCount > 0 else { throw .unknownKeyID }
            guard let sole = keys.soleVerificationKey else { throw .missingKeyID }
            key = sole
        }
        let valid = jws.signature.withUnsafeBytes { signature in
            jws.signingInput.withUnsafeBytes { message in
                key.verifyRS256(signature: signature, message: message)
            }
        }
        guard valid else { throw .badSignature }
    }
}
