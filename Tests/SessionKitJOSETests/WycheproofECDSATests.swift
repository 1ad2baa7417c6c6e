import Foundation
import SessionKitJOSE
import Testing

/// Every Project Wycheproof ECDSA P-256 SHA-256 vector in the P1363 (`r || s`) form, in
/// `../shared/vectors/wycheproof/`, through the JWK path an id_token's key takes.
///
/// Policy: `valid` must verify; `invalid` must not; `acceptable` would be rejected (strict, as
/// for RSA), but this file has none (checked below), so no exception is needed. Each group's key
/// is built as a JWKS `EC` entry with `x` and `y` at the full 32 bytes (the file's hex drops
/// leading zeros and adds a sign octet), so the strict JWK parser is what every vector passes.
@Suite struct WycheproofECDSATests {
    static let file = "wycheproof/ecdsa_secp256r1_sha256_p1363_test.json"

    struct Outcome {
        var accepted = 0
        var rejected = 0
        var valid = 0
        var invalid = 0
        var acceptable = 0
        var failures: [String] = []
    }

    static func hex(_ object: [String: Any], _ name: String) throws -> [UInt8] {
        let text = try #require(object[name] as? String)
        return try #require([UInt8](hex: text))
    }

    /// A big-endian coordinate at exactly 32 bytes.
    static func coordinate(_ bytes: [UInt8]) throws -> [UInt8] {
        let magnitude = Array(bytes.drop { $0 == 0 })
        try #require(magnitude.count <= 32)
        return [UInt8](repeating: 0, count: 32 - magnitude.count) + magnitude
    }

    static func run() throws -> Outcome {
        let document = try TestVectors.json(file)
        let groups = try #require(document["testGroups"] as? [[String: Any]])
        var outcome = Outcome()
        for (index, group) in groups.enumerated() {
            let publicKey = try #require(group["publicKey"] as? [String: Any])
            #expect(publicKey["curve"] as? String == "secp256r1")
            let x = try coordinate(hex(publicKey, "wx"))
            let y = try coordinate(hex(publicKey, "wy"))
            let jwk = JWK(kty: "EC", kid: "g\(index)", crv: "P-256", x: Base64URL.encode(x), y: Base64URL.encode(y))
            let keys = JWKS(keys: [jwk])
            let key = try #require(keys.p256VerificationKey(forKeyID: "g\(index)"), "group \(index): key refused")
            for test in try #require(group["tests"] as? [[String: Any]]) {
                let id = try #require(test["tcId"] as? Int)
                let result = try #require(test["result"] as? String)
                switch result {
                case "valid": outcome.valid += 1
                case "invalid": outcome.invalid += 1
                default: outcome.acceptable += 1
                }
                let verified = key.verifyES256(signature: try hex(test, "sig"), message: try hex(test, "msg"))
                if verified { outcome.accepted += 1 } else { outcome.rejected += 1 }
                if verified != (result == "valid") {
                    outcome.failures.append("tcId \(id): result \(result), verified \(verified)")
                }
            }
        }
        return outcome
    }

    @Test func everyValidVectorVerifiesAndEveryInvalidOneIsRejected() throws {
        let outcome = try Self.run()
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        // The file's own count: 262 tests, 173 valid, 89 invalid, none acceptable.
        #expect(outcome.valid == 173)
        #expect(outcome.invalid == 89)
        #expect(outcome.acceptable == 0)
        #expect(outcome.accepted == outcome.valid)
        #expect(outcome.rejected == outcome.invalid)
        let total = outcome.valid + outcome.invalid
        print("Wycheproof ECDSA P-256 P1363: \(total) vectors, \(outcome.accepted) accepted, \(outcome.rejected) rejected")
    }
}
