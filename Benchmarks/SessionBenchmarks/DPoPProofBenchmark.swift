import Foundation
import SessionKit
import SessionKitJOSE

#if canImport(CSessionKitOpenSSL)
    import CSessionKitOpenSSL
#endif

/// A DPoP proof (RFC 9449 §4.2) against a bare OpenSSL ES256 sign of the same bytes.
///
/// `proof` is `DPoPProofSigner.proof` for a UserInfo request with `ath` and a nonce: the claims
/// encoded, a `jti` from the CSPRNG, the signature made and converted to `r || s`, the JWS
/// assembled. `raw` is one `EVP_DigestSign` with the same key over a signing input of that proof,
/// nothing else. Batches interleave; each round keeps each body's fastest batch; ratio = proof
/// ns/op / raw ns/op (target ≤ 1.3), median over rounds.
struct DPoPProofBenchmark {
    enum Body: String, CaseIterable, Sendable {
        case proof
        case raw
    }

    struct Result: Sendable {
        var nanoseconds: [Body: Samples] = [:]
        var ratios = Samples()
    }

    var batches = 8
    var iterations = 200
    private(set) var result = Result()
    private var bodies: [Body: () -> Int] = [:]

    static func make() throws -> DPoPProofBenchmark {
        var benchmark = DPoPProofBenchmark()
        let key = try P256PrivateKey.generate()
        let signer = DPoPProofSigner(key: key)
        let accessToken = "at-7Y0mXq1dG8vN3pR5sW2kJ9fL4hB6cT0e"
        let issuedAt = Int64(Date().timeIntervalSince1970)
        benchmark.bodies[.proof] = {
            (try? signer.proof(
                method: "GET", targetURI: "https://op.example.com/userinfo", issuedAt: issuedAt, accessToken: accessToken,
                nonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v"))?.utf8.count ?? 0
        }
        let sample = try signer.proof(
            method: "GET", targetURI: "https://op.example.com/userinfo", issuedAt: issuedAt, accessToken: accessToken,
            nonce: "eyJ7S_zG.eyJH0-Z.HX4w-7v")
        let signingInput =
            Array(sample.utf8.prefix { $0 != UInt8(ascii: ".") }) + [UInt8(ascii: ".")]
            + Array(sample.split(separator: ".")[1].utf8)
        benchmark.bodies[.raw] = try rawSign(signingInput, key: key)
        for (body, run) in benchmark.bodies where run() == 0 {
            throw BenchmarkFailure("the \(body.rawValue) body did not sign")
        }
        return benchmark
    }

    private static func rawSign(_ message: [UInt8], key: P256PrivateKey) throws -> () -> Int {
        #if canImport(CSessionKitOpenSSL)
            let point = [0x04] + key.publicKey.x + key.publicKey.y
            let scalar = try key.exportScalar()
            let raw = try IDTokenBenchmark.RawKey(sk_p256_private_key(scalar, scalar.count, point, point.count))
            return {
                var signature = [UInt8](repeating: 0, count: 72)
                var length = 0
                let ok = sk_ecdsa_sign_sha256(raw.pointer, message, message.count, &signature, signature.count, &length)
                return ok == 1 ? length : 0
            }
        #else
            throw BenchmarkFailure("the raw sign needs the OpenSSL backend (Linux)")
        #endif
    }

    mutating func runRound() {
        let clock = ContinuousClock()
        var best: [Body: Double] = [:]
        var checksum = 0
        for _ in 0..<batches {
            for body in Body.allCases {
                let run = bodies[body]!
                let iterations = iterations
                let elapsed = clock.measure {
                    for _ in 0..<iterations { checksum &+= run() }
                }
                best[body] = min(best[body] ?? .infinity, elapsed.nanoseconds / Double(iterations))
            }
        }
        Sink.consume(Double(checksum))
        for (body, value) in best { result.nanoseconds[body, default: Samples()].add(value) }
        result.ratios.add(best[.proof]! / best[.raw]!)
    }
}
