import Foundation
import SessionKitJOSE

#if canImport(CSessionKitOpenSSL)
    import CSessionKitOpenSSL
#endif

/// `swift run -c release JOSEBenchmarks [--json] [--rounds N] [--python PATH]`
///
/// Full ID-token validation with a cached key, side by side with raw OpenSSL verification of the
/// same signing input and, when available, the same validation in PyJWT. The Python interpreter
/// comes from `--python`, else `$SESSIONKIT_BENCH_PYTHON`, else `python3` on `PATH` (the row is
/// skipped, with a message on stderr, when PyJWT does not import there).
@main
enum JOSEBenchmark {
    static func main() throws {
        var json = false
        var rounds = 200
        var python = ProcessInfo.processInfo.environment["SESSIONKIT_BENCH_PYTHON"]
        var profileIterations: Int?
        var profileRaw = false
        var arguments = CommandLine.arguments.dropFirst()
        while let argument = arguments.popFirst() {
            switch argument {
            case "--json": json = true
            case "--rounds": rounds = max(1, arguments.popFirst().flatMap(Int.init) ?? rounds)
            case "--python": python = arguments.popFirst()
            case "--profile": profileIterations = arguments.popFirst().flatMap(Int.init)
            case "--profile-raw":
                profileIterations = arguments.popFirst().flatMap(Int.init)
                profileRaw = true
            default:
                note("usage: JOSEBenchmarks [--json] [--rounds N] [--python PATH] [--profile N | --profile-raw N]")
                exit(2)
            }
        }

        let fixture = try Fixture(now: Date())
        let stopwatch = Stopwatch(rounds: rounds)
        let iterations = 2_000
        var measures: [Measure] = []

        // Full validation: parse, select the cached key, verify, check every claim.
        let keys = fixture.jwks
        let expectations = fixture.expectations
        let token = fixture.token
        let now = fixture.now
        var failures = 0
        let validateOnce = {
            do {
                _ = try IDTokenValidator.validate(token, keys: keys, expecting: expectations, now: now)
            } catch {
                failures += 1
            }
        }
        validateOnce()
        guard failures == 0 else {
            note("the benchmark token did not validate")
            exit(1)
        }
        if let profileIterations, !profileRaw {
            // Only full validation, for a profiler: `perf record … JOSEBenchmarks --profile N`.
            for _ in 0..<profileIterations { validateOnce() }
            return
        }

        #if canImport(CSessionKitOpenSSL)
            // Raw OpenSSL: the same signature over the same signing input, key and signature decoded
            // beforehand, one EVP_DigestVerify per iteration.
            let decoded = try CompactJWS.decode(token)
            let jwk = fixture.key.publicJWK(keyID: "raw")
            let modulus = try Base64URL.decode(jwk.n ?? "")
            let exponent = try Base64URL.decode(jwk.e ?? "")
            guard let rawKey = sk_rsa_public_key(modulus, modulus.count, exponent, exponent.count) else {
                note("OpenSSL refused the benchmark key")
                exit(1)
            }
            defer { sk_key_free(rawKey) }
            let signature = decoded.signature
            let signingInput = decoded.signingInput
            let rawVerifyOnce = {
                if sk_rsa_verify_sha256(rawKey, signature, signature.count, signingInput, signingInput.count) != 1 {
                    failures += 1
                }
            }
            if let profileIterations {
                for _ in 0..<profileIterations { rawVerifyOnce() }
                return
            }
            let rates = stopwatch.operationsPerSecond(iterations: iterations / 10, [validateOnce, rawVerifyOnce])
            let validateRate = rates[0]
            measures.append(Measure("validate.id_token", validateRate, unit: "verify/s"))
            measures.append(Measure("validate.raw_openssl_rs256", rates[1], unit: "verify/s"))
            measures.append(Measure("validate.ratio_to_raw_openssl", validateRate / rates[1], unit: "x", atLeast: 0.8))
        #else
            let validateRate = stopwatch.operationsPerSecond(iterations: iterations / 10, [validateOnce])[0]
            measures.append(Measure("validate.id_token", validateRate, unit: "verify/s"))
            note("raw OpenSSL row skipped: this platform does not use the OpenSSL backend")
        #endif
        guard failures == 0 else {
            note("a verification failed during the benchmark")
            exit(1)
        }

        // PyJWT, when a Python with PyJWT is at hand.
        if python == nil {
            python = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
                .map { $0 + "/python3" }
                .first { FileManager.default.isExecutableFile(atPath: $0) }
        }
        if let python {
            do {
                let result = try PyJWTComparison(python: python).run(
                    fixture: fixture, iterations: iterations / 4, rounds: max(3, rounds / 20))
                note("PyJWT \(result.version) from \(python)")
                measures.append(Measure("pyjwt.id_token", result.perSecond, unit: "verify/s"))
                measures.append(Measure("pyjwt.backend_rs256", result.backendPerSecond, unit: "verify/s"))
                measures.append(Measure("pyjwt.speedup", validateRate / result.perSecond, unit: "x", atLeast: 2))
            } catch {
                note("PyJWT row skipped: \(error.reason) (install PyJWT and cryptography, then pass --python PATH)")
            }
        } else {
            note("PyJWT row skipped: no python3 found (pass --python PATH or set SESSIONKIT_BENCH_PYTHON)")
        }

        // Smaller pieces, for context.
        let signatureText = String(token.split(separator: ".")[2])
        var decodedBytes = 0
        let shortStopwatch = Stopwatch(rounds: max(3, rounds / 20))
        let base64Rates = shortStopwatch.operationsPerSecond(
            iterations: iterations / 10,
            [
                { decodedBytes &+= (try? Base64URL.decode(signatureText))?.count ?? 0 },
                {
                    var text = signatureText.replacingOccurrences(of: "-", with: "+")
                        .replacingOccurrences(of: "_", with: "/")
                    text += String(repeating: "=", count: (4 - text.count % 4) % 4)
                    decodedBytes &+= Data(base64Encoded: text)?.count ?? 0
                },
            ])
        measures.append(Measure("base64url.decode_signature", 1e9 / base64Rates[0], unit: "ns/op"))
        measures.append(Measure("base64url.foundation_decode_signature", 1e9 / base64Rates[1], unit: "ns/op"))
        let jwksJSON = fixture.jwksJSON
        var keyCount = 0
        let jwksRate = shortStopwatch.operationsPerSecond(
            iterations: iterations / 10, [{ keyCount &+= (try? JWKS(jsonData: jwksJSON))?.verificationKeyCount ?? 0 }])[0]
        measures.append(Measure("jwks.decode_3_keys", 1e6 / jwksRate, unit: "us/op"))
        guard decodedBytes > 0, keyCount > 0 else {
            note("a decoding benchmark produced nothing")
            exit(1)
        }

        if json {
            for measure in measures { print(measure.jsonLine) }
        } else {
            print(Measure.header)
            for measure in measures { print(measure.row) }
        }
    }

    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
