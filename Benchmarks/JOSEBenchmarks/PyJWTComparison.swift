import Foundation

/// Runs the same ID-token validation in PyJWT (with the `cryptography` backend) in a Python
/// subprocess, for a side-by-side rate in the same benchmark run.
struct PyJWTComparison {
    let python: String

    /// The result: verifications per second (best round) and the PyJWT version.
    struct Result {
        let perSecond: Double
        /// The `cryptography` backend's bare RS256 verification rate on the same input.
        let backendPerSecond: Double
        let version: String
    }

    /// Why the comparison could not run.
    struct Unavailable: Error {
        let reason: String
    }

    /// The Python side: the key is parsed once (as the Swift side caches it); each iteration looks
    /// the key up by `kid`, verifies RS256, checks iss, aud, exp/iat with 60 s leeway, requires
    /// sub, and checks nonce and at_hash — the same work IDTokenValidator does.
    static let script = #"""
        import base64, hashlib, json, sys, time
        try:
            import jwt
            from jwt.algorithms import RSAAlgorithm
        except Exception as error:
            print(json.dumps({"error": "PyJWT not importable: %s" % error}))
            sys.exit(0)
        config = json.loads(sys.stdin.read())
        keys = {k["kid"]: RSAAlgorithm.from_jwk(json.dumps(k)) for k in config["jwks"]["keys"] if k.get("kty") == "RSA"}
        def at_hash(token):
            return base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()[:16]).rstrip(b"=").decode()
        def validate(token):
            header = jwt.get_unverified_header(token)
            if header.get("alg") != "RS256":
                raise ValueError("alg")
            key = keys[header["kid"]]
            claims = jwt.decode(token, key=key, algorithms=["RS256"], audience=config["client_id"],
                                issuer=config["issuer"], leeway=60,
                                options={"require": ["exp", "iat", "iss", "aud", "sub"]})
            if claims.get("nonce") != config["nonce"]:
                raise ValueError("nonce")
            if not claims.get("sub"):
                raise ValueError("sub")
            if "at_hash" in claims and claims["at_hash"] != at_hash(config["access_token"]):
                raise ValueError("at_hash")
            return claims
        token = config["token"]
        validate(token)
        # The backend alone, for context: RS256 verification of the same signing input.
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import padding
        signing_input, _, signature = token.rpartition(".")
        signature = base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4))
        backend_key = keys[jwt.get_unverified_header(token)["kid"]]
        def raw_verify():
            backend_key.verify(signature, signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
        best = 0.0
        best_raw = 0.0
        for _ in range(config["rounds"]):
            start = time.perf_counter()
            for _ in range(config["iterations"]):
                validate(token)
            best = max(best, config["iterations"] / (time.perf_counter() - start))
            start = time.perf_counter()
            for _ in range(config["iterations"]):
                raw_verify()
            best_raw = max(best_raw, config["iterations"] / (time.perf_counter() - start))
        print(json.dumps({"per_second": best, "raw_per_second": best_raw, "version": jwt.__version__}))
        """#

    func run(fixture: Fixture, iterations: Int, rounds: Int) throws(Unavailable) -> Result {
        let config: [String: Any] = [
            "jwks": (try? JSONSerialization.jsonObject(with: Data(fixture.jwksJSON))) ?? [:],
            "token": fixture.token, "issuer": Fixture.issuer, "client_id": Fixture.clientID,
            "nonce": Fixture.nonce, "access_token": Fixture.accessToken, "iterations": iterations, "rounds": rounds,
        ]
        guard let input = try? JSONSerialization.data(withJSONObject: config) else {
            throw Unavailable(reason: "could not encode the configuration")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", Self.script]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw Unavailable(reason: "cannot start \(python)")
        }
        stdin.fileHandleForWriting.write(input)
        try? stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let object = try? JSONSerialization.jsonObject(with: output) as? [String: Any]
        else {
            throw Unavailable(reason: "\(python) failed to validate the token with PyJWT")
        }
        if let error = object["error"] as? String {
            throw Unavailable(reason: error)
        }
        guard let perSecond = object["per_second"] as? Double else {
            throw Unavailable(reason: "unexpected output from \(python)")
        }
        return Result(
            perSecond: perSecond, backendPerSecond: object["raw_per_second"] as? Double ?? 0,
            version: object["version"] as? String ?? "?")
    }
}
