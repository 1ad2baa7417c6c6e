// libFuzzer entry points for SessionKitJOSE. Built by Fuzz/run.sh together with the module's
// sources (one module, so internal invariants can be checked too); the target is chosen by the
// JOSE_FUZZ_TARGET environment variable.
//
// Besides "does not crash", each target checks a property that must hold for every input, and
// traps when it does not, so libFuzzer records the input as a crash.

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The fuzz targets by name.
enum FuzzTarget: String, CaseIterable {
    case jws
    case jwks
    case ecjwk
    case base64url
    case json
    case idtoken
    case userinfo
    case loopback
    case wwwauth
    case dpopnonce

    static nonisolated(unsafe) var selected: FuzzTarget = .jws

    func run(_ bytes: [UInt8]) {
        switch self {
        case .jws: Self.fuzzCompactJWS(bytes)
        case .jwks: Self.fuzzJWKS(bytes)
        case .ecjwk: Self.fuzzECJWK(bytes)
        case .base64url: Self.fuzzBase64URL(bytes)
        case .json: Self.fuzzJSON(bytes)
        case .idtoken: Self.fuzzIDToken(bytes)
        case .userinfo: Self.fuzzUserInfo(bytes)
        case .loopback: Self.fuzzLoopbackRequestHead(bytes)
        case .wwwauth: Self.fuzzWWWAuthenticate(bytes)
        case .dpopnonce: Self.fuzzDPoPNonce(bytes)
        }
    }

    /// `WWW-Authenticate`: accepted challenges have token schemes, serialize to a field that
    /// parses back to the same challenges, and stay within the parameter bound.
    static func fuzzWWWAuthenticate(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let challenges = try? AuthenticationChallenge.parse(text) else { return }
        require(!challenges.isEmpty, "accepted a field without a challenge")
        require(
            challenges.allSatisfy { !$0.scheme.isEmpty && $0.scheme.utf8.allSatisfy(ChallengeParser.isTokenChar) },
            "accepted a scheme that is not a token")
        require(
            challenges.reduce(0) { $0 + $1.parameters.count } <= AuthenticationChallenge.maximumParameterCount,
            "accepted more parameters than the bound")
        let reparsed = try? AuthenticationChallenge.parse(AuthenticationChallenge.serialize(challenges))
        require(reparsed == challenges, "serialization does not round-trip")
    }

    /// `DPoP-Nonce`: an accepted nonce is non-empty `NQCHAR`s within the bound, and parsing it
    /// again gives itself.
    static func fuzzDPoPNonce(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let nonce = try? DPoPNonce(headerValue: text) else { return }
        require(!nonce.value.isEmpty && nonce.value.utf8.count <= DPoPNonce.maximumLength, "accepted an empty or long nonce")
        require(nonce.value.utf8.allSatisfy(DPoPNonce.isNQChar), "accepted a byte outside NQCHAR")
        require((try? DPoPNonce(headerValue: nonce.value)) == nonce, "a nonce does not parse to itself")
    }

    /// A property that must hold; a violation is reported to libFuzzer as a crash.
    static func require(_ condition: Bool, _ message: StaticString) {
        if !condition {
            printError("property violated: \(message)")
            abort()
        }
    }

    /// Compact JWS: a decoded token re-encodes to exactly the same text (canonical base64url,
    /// exactly three segments), and nothing ever crashes.
    static func fuzzCompactJWS(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let jws = try? CompactJWS.decode(text) else { return }
        let reencoded =
            Base64URL.encode(jws.header.bytes) + "." + Base64URL.encode(jws.payload) + "."
            + Base64URL.encode(jws.signature)
        require(reencoded == text, "decoded JWS does not re-encode to the same token")
        require(jws.signingInput == Array(text.utf8.prefix(jws.signingInput.count)), "signing input is not the prefix")
        require(!jws.signature.isEmpty, "empty signature accepted")
        _ = jws.headerJSON
        _ = try? jws.payloadJSON()
    }

    static let fuzzKey: RSAPrivateKey? = try? RSAPrivateKey.generate()
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let expecting = IDTokenExpectations(
        issuer: "https://issuer.example", clientID: "client", nonce: "n", accessToken: "at", allowMissingKeyID: true)

    /// ID tokens: arbitrary text never validates against a fixed key set (nothing unsigned may
    /// pass), and arbitrary bytes as a claims set go through every claim check (sign-in and
    /// refresh) without crashing; whatever passes really says what was expected.
    static func fuzzIDToken(_ bytes: [UInt8]) {
        if let key = fuzzKey {
            let keys = JWKS(keys: [key.publicJWK(keyID: "k1"), JWK(kty: "EC", kid: "ec")])
            let text = String(decoding: bytes, as: UTF8.self)
            let result = try? IDTokenValidator.validate(text, keys: keys, expecting: expecting, now: now)
            require(result == nil, "a token not signed by the key validated")
        }
        guard let raw = try? RawIDTokenClaims(json: bytes) else { return }
        if let claims = try? IDTokenValidator.check(raw, expecting: expecting, previous: nil, now: now) {
            require(claims.issuer == expecting.issuer, "accepted another issuer")
            require(claims.audience.contains(expecting.clientID), "accepted another audience")
            require(claims.expiresAt.timeIntervalSince1970 + 60 > now.timeIntervalSince1970, "accepted an expired token")
            require(claims.nonce == expecting.nonce, "accepted another nonce")
            require(!claims.subject.isEmpty, "accepted an empty subject")
            let previous = IDTokenClaims(
                issuer: expecting.issuer, subject: "someone-else", audience: ["client"], expiresAt: now, issuedAt: now)
            let refreshed = try? IDTokenValidator.check(raw, expecting: expecting, previous: previous, now: now)
            require(refreshed == nil || claims.subject == "someone-else", "refresh accepted another subject")
            // The flat Codable form keeps every claim.
            if let data = try? JSONEncoder().encode(claims) {
                require((try? JSONDecoder().decode(IDTokenClaims.self, from: data)) == claims, "claims did not survive Codable")
            }
        }
        if let claims = try? IDTokenValidator.check(raw, expecting: requestChecks, previous: nil, now: now) {
            let authTime = claims.authenticationTime?.timeIntervalSince1970
            require(authTime.map { $0 + 300 + 60 >= now.timeIntervalSince1970 } == true, "accepted a stale or missing auth_time")
            require(claims.authenticationContextClass.map(requestChecks.requiredACRValues.contains) == true, "accepted another acr")
        }
    }

    static let requestChecks = IDTokenExpectations(
        issuer: "https://issuer.example", clientID: "client", nonce: "n", skew: 60, maxAge: 300,
        requiredACRValues: ["urn:mfa", "urn:hw"])

    /// UserInfo: decoding never crashes, an accepted answer is always about the expected subject,
    /// and no typed claim is repeated among the additional ones.
    static func fuzzUserInfo(_ bytes: [UInt8]) {
        guard let info = try? UserInfo.decode(bytes, expectedSubject: "248289761001") else { return }
        require(info.subject == "248289761001", "accepted another subject")
        require(info.additionalClaims["sub"] == nil, "sub among the additional claims")
        require(ProfileClaims.names.allSatisfy { info.additionalClaims[$0] == nil }, "a typed claim among the additional ones")
    }

    /// JWKS: decoding never crashes, and what it decoded survives a round trip through
    /// `jsonData()` unchanged.
    static func fuzzJWKS(_ bytes: [UInt8]) {
        guard let keys = try? JWKS(jsonData: bytes) else { return }
        guard let again = try? JWKS(jsonData: keys.jsonData()) else {
            require(false, "serialized JWKS does not decode")
            return
        }
        require(again.keys == keys.keys, "JWKS round trip changed the keys")
        require(again.verificationKeyCount == keys.verificationKeyCount, "JWKS round trip changed the usable keys")
    }

    /// One EC JWK (a JWKS entry) and the ECDSA signature forms: a key the parser accepts for ES256
    /// is exactly a P-256 key whose `x` and `y` are canonical 43-character base64url of 32 bytes,
    /// its JWK prints them back unchanged, and a set of it offers it under its `kid`; a P1363
    /// signature that converts to DER converts back to itself, and DER that converts to P1363 is
    /// exactly the minimal DER of that signature.
    static func fuzzECJWK(_ bytes: [UInt8]) {
        if bytes.count >= 64 {
            let p1363 = Array(bytes.prefix(64))
            if let der = p1363.withUnsafeBytes({ ECDSASignature.der(fromP1363: $0) }) {
                require(ECDSASignature.p1363(fromDER: der) == p1363, "P1363 to DER to P1363 changed the signature")
            }
        }
        if let p1363 = ECDSASignature.p1363(fromDER: bytes) {
            require(p1363.count == 64, "DER converted to a P1363 signature of the wrong length")
            // Out-of-range scalars have no DER form, so only in-range ones must round-trip.
            if let der = p1363.withUnsafeBytes({ ECDSASignature.der(fromP1363: $0) }) {
                require(der == bytes, "accepted DER is not the minimal encoding of its signature")
            }
        }
        guard let object = try? JSONParser.parseObject(bytes, maximumDepth: 16), let jwk = JWK(json: object) else { return }
        let key = try? jwk.p256PublicKey()
        if let key {
            require(jwk.kty == "EC" && jwk.crv == "P-256", "a P-256 key from a JWK of another type or curve")
            require(key.x.count == 32 && key.y.count == 32, "a P-256 coordinate that is not 32 bytes")
            require(
                Base64URL.encode(key.x) == jwk.x && Base64URL.encode(key.y) == jwk.y,
                "accepted coordinates are not the canonical text of their bytes")
            let printed = key.jwk(keyID: jwk.kid)
            require((try? printed.p256PublicKey())?.x == key.x, "a key's own JWK does not parse back to it")
        }
        let usable = JWKS(keys: [jwk]).verificationKeyCount(for: .es256) == 1
        require(usable == (key != nil && jwk.isVerificationCandidate(for: .es256)), "a set's ES256 keys disagree with the JWK's")
        if usable, let kid = jwk.kid {
            require(JWKS(keys: [jwk]).p256VerificationKey(forKeyID: kid)?.x == key?.x, "a usable key is not found by its kid")
        }
    }

    /// The loopback presenter's request-head parser (compiled in from SessionKit): whatever a
    /// local process sends, an accepted head has an origin-form target of visible ASCII, a token
    /// method, and its end is found at its blank line.
    static func fuzzLoopbackRequestHead(_ bytes: [UInt8]) {
        if let end = LoopbackRequestHead.end(in: bytes) {
            require(end >= 4 && bytes[end - 4..<end].elementsEqual(LoopbackRequestHead.terminator), "end is not after a blank line")
        }
        for candidate in [ArraySlice(bytes), ArraySlice(bytes + LoopbackRequestHead.terminator)] {
            guard let head = try? LoopbackRequestHead.parse(candidate) else { continue }
            require(head.target.first == "/", "accepted a target that is not origin-form")
            require(head.target.utf8.allSatisfy { (0x21...0x7E).contains($0) }, "accepted a target with invisible bytes")
            require(!head.method.isEmpty && head.method.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }, "accepted an odd method")
            require(head.target.hasPrefix(String(head.path)), "the path is not the target's start")
            require(candidate.count <= LoopbackRequestHead.maximumSize, "accepted an oversized head")
        }
    }

    /// Base64url: decode accepts exactly the canonical encodings (decode then encode is the
    /// identity on accepted text), and encode then decode is the identity on bytes.
    static func fuzzBase64URL(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        if let decoded = try? Base64URL.decode(text) {
            require(Base64URL.encode(decoded) == text, "accepted a non-canonical encoding")
        }
        let encoded = Base64URL.encode(bytes)
        require((try? Base64URL.decode(encoded)) == bytes, "encode/decode round trip failed")
    }

    /// JSON: the scanning parser (used for headers and claims) and the tree parser agree on
    /// every input, and what parses survives serialization.
    static func fuzzJSON(_ bytes: [UInt8]) {
        let tree: Result<JSONValue, JOSEError>
        do throws(JOSEError) {
            tree = .success(try JSONParser.parse(bytes, maximumDepth: 16))
        } catch {
            tree = .failure(error)
        }
        let scanned: Result<Void, JOSEError> = bytes.withUnsafeBufferPointer { buffer in
            do throws(JOSEError) {
                try JSONParser.scanObject(buffer, maximumDepth: 16) { (_, parser) throws(JOSEError) in
                    try parser.skipValue()
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        switch (tree, scanned) {
        case (.success(.object), .success):
            break
        case (.success, .failure(.notAnObject)):
            break
        case (.failure(let treeError), .failure(let scanError)):
            // Both reject; the reason may differ only in which rule tripped first.
            _ = (treeError, scanError)
        default:
            require(false, "tree parser and scanner disagree")
        }
        if case .success(let value) = tree {
            let written = Array(JSONWriter.serialize(value).utf8)
            require((try? JSONParser.parse(written, maximumDepth: 16)) == value, "JSON did not survive serialization")
        }
        _ = try? RawIDTokenClaims(json: bytes)
    }
}

/// Writes a line to standard error without touching C's global `stderr`.
func printError(_ text: String) {
    let line = text + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    let name = getenv("JOSE_FUZZ_TARGET").map { String(cString: $0) } ?? "jws"
    guard let target = FuzzTarget(rawValue: name) else {
        printError("unknown JOSE_FUZZ_TARGET \(name); one of: \(FuzzTarget.allCases.map(\.rawValue))")
        exit(2)
    }
    FuzzTarget.selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzTarget.selected.run(bytes)
    return 0
}
