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
        try verify(token, keys: keys, algorithms: [.rs256], allowMissingKeyID: allowMissingKeyID)
    }

    /// Verifies the JOSE layer of a token signed with one of `algorithms` (RS256, ES256): parses
    /// it, requires its `alg` to be among them, selects the key by exact `kid` among the set's
    /// keys for that `alg` (an RSA key for RS256, a P-256 key for ES256), and checks the
    /// signature. Claims are not looked at.
    ///
    /// Errors use the ID-token codes: `malformed` for any parse failure, `bad_signature` for an
    /// `alg` not allowed or a failed signature, `missing_kid`, `unknown_kid`. With
    /// `allowMissingKeyID`, a token without `kid` is checked against the set's only key for its
    /// `alg`; none gives `unknown_kid` (a refetch may help), several `missing_kid`.
    public static func verify(
        _ token: some StringProtocol, keys: JWKS, algorithms: Set<JWSAlgorithm>, allowMissingKeyID: Bool = false
    ) throws(IDTokenError) -> DecodedJWS {
        let jws: DecodedJWS
        do {
            jws = try decode(token)
        } catch {
            throw .malformed
        }
        try verify(jws, keys: keys, algorithms: algorithms, allowMissingKeyID: allowMissingKeyID)
        return jws
    }

    /// The checks of ``verify(_:keys:algorithms:allowMissingKeyID:)`` on an already decoded token.
    static func verify(
        _ jws: DecodedJWS, keys: JWKS, algorithms: Set<JWSAlgorithm>, allowMissingKeyID: Bool
    ) throws(IDTokenError) {
        let key = try selectKey(for: jws.header, keys: keys, algorithms: algorithms, allowMissingKeyID: allowMissingKeyID)
        let valid = jws.signature.withUnsafeBytes { signature in
            jws.signingInput.withUnsafeBytes { message in
                key.verify(signature: signature, message: message)
            }
        }
        guard valid else { throw .badSignature }
    }

    /// The checks of ``verify(_:keys:algorithms:allowMissingKeyID:)``, done in place for the
    /// validator: the signature is decoded into temporary memory and checked against the token's
    /// own bytes, so neither it nor a copy of the signing input is kept. Returns the header and
    /// payload. The same errors, in the same order, as decoding and then verifying.
    static func verifiedHeaderAndPayload(
        _ token: String, keys: JWKS, algorithms: Set<JWSAlgorithm>, allowMissingKeyID: Bool
    ) throws(IDTokenError) -> (header: JOSEHeader, payload: [UInt8]) {
        let verify = { (buffer: UnsafeBufferPointer<UInt8>) -> Result<(header: JOSEHeader, payload: [UInt8]), IDTokenError> in
            do throws(IDTokenError) {
                return .success(
                    try verifiedHeaderAndPayload(buffer, keys: keys, algorithms: algorithms, allowMissingKeyID: allowMissingKeyID))
            } catch {
                return .failure(error)
            }
        }
        if let result = token.utf8.withContiguousStorageIfAvailable(verify) { return try result.get() }
        return try Array(token.utf8).withUnsafeBufferPointer(verify).get()
    }

    private static func verifiedHeaderAndPayload(
        _ token: UnsafeBufferPointer<UInt8>, keys: JWKS, algorithms: Set<JWSAlgorithm>, allowMissingKeyID: Bool
    ) throws(IDTokenError) -> (header: JOSEHeader, payload: [UInt8]) {
        let header: JOSEHeader
        let payload: [UInt8]
        let signatureRange: Range<Int>
        let signingInputCount: Int
        let signatureCount: Int
        do {
            let (firstDot, secondDot) = try dots(in: token)
            let headerBytes = try segment(token, 0..<firstDot)
            payload = try segment(token, (firstDot + 1)..<secondDot)
            signatureRange = (secondDot + 1)..<token.count
            guard let count = Base64URL.decodedCount(ofCharacters: signatureRange.count) else { throw JOSEError.invalidBase64URL }
            signatureCount = count
            signingInputCount = secondDot
            header = try JOSEHeader(json: headerBytes)
        } catch {
            throw .malformed
        }
        let result = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: signatureCount) {
            (signature) -> Result<Void, IDTokenError> in
            guard Base64URL.decode(buffer: UnsafeBufferPointer(rebasing: token[signatureRange]), into: signature) else {
                return .failure(.malformed)
            }
            do throws(IDTokenError) {
                let key = try selectKey(for: header, keys: keys, algorithms: algorithms, allowMissingKeyID: allowMissingKeyID)
                let valid = key.verify(
                    signature: UnsafeRawBufferPointer(signature),
                    message: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(token)[0..<signingInputCount]))
                return valid ? .success(()) : .failure(.badSignature)
            } catch {
                return .failure(error)
            }
        }
        try result.get()
        return (header, payload)
    }

    /// The key a header asks for, under the rules of ``verify(_:keys:algorithms:allowMissingKeyID:)``.
    static func selectKey(
        for header: JOSEHeader, keys: JWKS, algorithms: Set<JWSAlgorithm>, allowMissingKeyID: Bool
    ) throws(IDTokenError) -> JWKS.VerificationKey {
        let algorithm = JWSAlgorithm(rawValue: header.algorithm)
        guard algorithms.contains(algorithm) else { throw .badSignature }
        if let keyID = header.keyID {
            guard let found = keys.verificationKey(for: algorithm, keyID: keyID) else { throw .unknownKeyID }
            return found
        }
        guard allowMissingKeyID else { throw .missingKeyID }
        guard keys.verificationKeyCount(for: algorithm) > 0 else { throw .unknownKeyID }
        guard let sole = keys.soleVerificationKey(for: algorithm) else { throw .missingKeyID }
        return sole
    }
}
