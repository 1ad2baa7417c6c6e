import Foundation
import SessionKitJOSE

#if canImport(CSessionKitOpenSSL)
    import CSessionKitOpenSSL
#endif

/// id_token validation against a raw OpenSSL verify of the same token, for RS256 and ES256.
///
/// Each algorithm has three bodies, timed interleaved in batches within a round: `validate` (the
/// whole of `IDTokenValidator.validate` with a cached key: parse, key selection, signature, every
/// claim check, `at_hash`), `jose` (`CompactJWS.verify`: parse, key selection and signature only,
/// no claims) and `raw` (one OpenSSL `EVP_DigestVerify` over the signing input, the key built and
/// the signature decoded beforehand — for ES256 already in DER). A round keeps each body's fastest
/// batch (outside load only ever slows a batch down); ratios are raw ns/op over body ns/op, so 1
/// means as fast as the raw verify; the median over rounds is reported.
struct IDTokenBenchmark {
    enum Algorithm: String, CaseIterable, Sendable {
        case rs256 = "RS256"
        case es256 = "ES256"
    }

    enum Body: String, CaseIterable, Sendable {
        case validate
        case jose
        case raw
    }

    struct Pair: Hashable, Sendable {
        var algorithm: Algorithm
        var body: Body
    }

    static let issuer = "https://op.example.com"
    static let clientID = "com.example.app"
    static let nonce = "b4CMzvm2bJcZ2sQ8Zl1RxQ"
    static let accessToken = "at-7Y0mXq1dG8vN3pR5sW2kJ9fL4hB6cT0e"

    /// What the rounds measured: ns/op and the speed ratio to the raw verify, per pair.
    struct Result: Sendable {
        var nanoseconds: [Pair: Samples] = [:]
        var ratios: [Pair: Samples] = [:]
    }

    var batches = 8
    var iterations = 150
    private(set) var result = Result()
    private var bodies: [Pair: () -> Int] = [:]

    /// A provider-like set (two RSA keys, a P-256 key) and one token per algorithm, shaped like a
    /// real id_token (`kid`, nonce, `at_hash`, the account-identity claims), valid for an hour.
    static func make() throws -> IDTokenBenchmark {
        var benchmark = IDTokenBenchmark()
        let rsa = try RSAPrivateKey.generate()
        let previous = try RSAPrivateKey.generate()
        let ec = try P256PrivateKey.generate()
        let keys = JWKS(keys: [previous.publicJWK(keyID: "2025-12"), rsa.publicJWK(keyID: "2026-06"), ec.publicJWK(keyID: "ec-2026")])
        let now = Date()
        let seconds = Int(now.timeIntervalSince1970)
        let claims = Array(
            """
            {"iss":"\(issuer)","sub":"2f8c1e0a-7d4b-4c59-9a0e-5b1d3f6e8a21","aud":"\(clientID)",\
            "exp":\(seconds + 3600),"iat":\(seconds),"auth_time":\(seconds - 5),"nonce":"\(nonce)",\
            "at_hash":"\(AccessTokenHash.compute(for: accessToken))","email":"someone@example.com",\
            "email_verified":true,"canonical_sub":"2f8c1e0a-7d4b-4c59-9a0e-5b1d3f6e8a21","is_canonical":true,\
            "linked_subs":[],"anonymous":false}
            """.utf8)
        let expectations = IDTokenExpectations(
            issuer: issuer, clientID: clientID, nonce: nonce, accessToken: accessToken, algorithms: [.rs256, .es256])
        let tokens: [Algorithm: String] = [
            .rs256: try CompactJWS.signRS256(payload: claims, keyID: "2026-06", key: rsa),
            .es256: try CompactJWS.signES256(payload: claims, keyID: "ec-2026", key: ec),
        ]
        for algorithm in Algorithm.allCases {
            let token = tokens[algorithm]!
            benchmark.bodies[Pair(algorithm: algorithm, body: .validate)] = {
                (try? IDTokenValidator.validate(token, keys: keys, expecting: expectations, now: now))?.claims.subject.utf8.count ?? 0
            }
            benchmark.bodies[Pair(algorithm: algorithm, body: .jose)] = {
                (try? CompactJWS.verify(token, keys: keys, algorithms: expectations.algorithms))?.payload.count ?? 0
            }
            benchmark.bodies[Pair(algorithm: algorithm, body: .raw)] = try rawVerify(
                token, algorithm: algorithm, rsa: rsa.publicJWK(keyID: "raw"), ec: ec.publicJWK(keyID: "raw"))
        }
        for (pair, body) in benchmark.bodies where body() == 0 {
            throw BenchmarkFailure("the \(pair.algorithm.rawValue) \(pair.body.rawValue) body did not verify its token")
        }
        return benchmark
    }

    /// One OpenSSL verify of `token`'s signature, everything else prepared beforehand.
    private static func rawVerify(_ token: String, algorithm: Algorithm, rsa: JWK, ec: JWK) throws -> () -> Int {
        #if canImport(CSessionKitOpenSSL)
            let decoded = try CompactJWS.decode(token)
            let signingInput = decoded.signingInput
            let key: RawKey
            let signature: [UInt8]
            switch algorithm {
            case .rs256:
                let modulus = try Base64URL.decode(rsa.n ?? "")
                let exponent = try Base64URL.decode(rsa.e ?? "")
                key = try RawKey(sk_rsa_public_key(modulus, modulus.count, exponent, exponent.count))
                signature = decoded.signature
                return {
                    Int(sk_rsa_verify_sha256(key.pointer, signature, signature.count, signingInput, signingInput.count))
                }
            case .es256:
                let point = [0x04] + (try Base64URL.decode(ec.x ?? "")) + (try Base64URL.decode(ec.y ?? ""))
                key = try RawKey(sk_p256_public_key(point, point.count))
                guard let der = decoded.signature.withUnsafeBytes({ ECDSASignature.der(fromP1363: $0) }) else {
                    throw BenchmarkFailure("the ES256 signature has no DER form")
                }
                signature = der
                return {
                    Int(sk_ecdsa_verify_sha256(key.pointer, signature, signature.count, signingInput, signingInput.count))
                }
            }
        #else
            throw BenchmarkFailure("the raw verify needs the OpenSSL backend (Linux)")
        #endif
    }

    #if canImport(CSessionKitOpenSSL)
        /// An OpenSSL key freed with the last closure that holds it.
        final class RawKey {
            let pointer: OpaquePointer

            init(_ pointer: OpaquePointer?) throws {
                guard let pointer else { throw BenchmarkFailure("OpenSSL refused the benchmark key") }
                self.pointer = pointer
            }

            deinit { sk_key_free(pointer) }
        }
    #endif

    /// One round: every body's batches interleaved, each body's fastest batch kept.
    mutating func runRound() {
        let clock = ContinuousClock()
        var best: [Pair: Double] = [:]
        var checksum = 0
        let pairs = Algorithm.allCases.flatMap { algorithm in Body.allCases.map { Pair(algorithm: algorithm, body: $0) } }
        for _ in 0..<batches {
            for pair in pairs {
                let body = bodies[pair]!
                let iterations = iterations
                let elapsed = clock.measure {
                    for _ in 0..<iterations { checksum &+= body() }
                }
                let perCall = elapsed.nanoseconds / Double(iterations)
                best[pair] = min(best[pair] ?? .infinity, perCall)
            }
        }
        Sink.consume(Double(checksum))
        for (pair, value) in best {
            result.nanoseconds[pair, default: Samples()].add(value)
            let raw = best[Pair(algorithm: pair.algorithm, body: .raw)]!
            result.ratios[pair, default: Samples()].add(raw / value)
        }
    }
}
