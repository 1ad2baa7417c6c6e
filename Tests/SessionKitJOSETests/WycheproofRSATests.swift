import Foundation
import SessionKitJOSE
import Testing

/// Every Project Wycheproof RSASSA-PKCS1-v1_5 SHA-256 vector in `../shared/vectors/wycheproof/`.
///
/// Policy: `valid` must verify; `invalid` and `acceptable` must not. No exceptions are made —
/// the small-exponent (e = 3) keys are accepted by ``RSAPublicKey`` (a strict padding check
/// makes e = 3 safe), so their `valid` vectors are expected to verify.
@Suite struct WycheproofRSATests {
    struct Outcome {
        var accepted = 0
        var rejected = 0
        var failures: [String] = []
    }

    static let files = [
        "rsa_signature_2048_sha256_test.json",
        "rsa_signature_3072_sha256_test.json",
        "rsa_signature_4096_sha256_test.json",
    ]

    static func hex(_ object: [String: Any], _ name: String) throws -> [UInt8] {
        let text = try #require(object[name] as? String)
        return try #require([UInt8](hex: text))
    }

    static func run(file: String) throws -> (outcome: Outcome, total: Int) {
        let document = try TestVectors.json("wycheproof/" + file)
        let groups = try #require(document["testGroups"] as? [[String: Any]])
        var outcome = Outcome()
        var total = 0
        for group in groups {
            let publicKey = try #require(group["publicKey"] as? [String: Any])
            let modulus = try hex(publicKey, "modulus")
            let exponent = try hex(publicKey, "publicExponent")
            let key = try RSAPublicKey(modulus: modulus, exponent: exponent)
            for test in try #require(group["tests"] as? [[String: Any]]) {
                total += 1
                let id = try #require(test["tcId"] as? Int)
                let result = try #require(test["result"] as? String)
                let message = try hex(test, "msg")
                let signature = try hex(test, "sig")
                let verified = key.verifyRS256(signature: signature, message: message)
                if verified { outcome.accepted += 1 } else { outcome.rejected += 1 }
                if verified != (result == "valid") {
                    outcome.failures.append("\(file) tcId \(id): result \(result), verified \(verified)")
                }
            }
        }
        return (outcome, total)
    }

    @Test(arguments: files)
    func everyVectorHasTheExpectedVerdict(file: String) throws {
        let (outcome, total) = try Self.run(file: file)
        #expect(outcome.failures.isEmpty, "\(outcome.failures)")
        #expect(outcome.accepted + outcome.rejected == total)
        #expect(total > 250)
        print("Wycheproof \(file): \(total) vectors, \(outcome.accepted) accepted, \(outcome.rejected) rejected")
    }

    @Test func vectorCountsMatchTheFiles() throws {
        var valid = 0
        var accepted = 0
        for file in Self.files {
            let document = try TestVectors.json("wycheproof/" + file)
            let groups = try #require(document["testGroups"] as? [[String: Any]])
            valid += groups.flatMap { ($0["tests"] as? [[String: Any]]) ?? [] }.filter { $0["result"] as? String == "valid" }.count
            accepted += try Self.run(file: file).outcome.accepted
        }
        // Exactly the valid vectors verify: 9 + 8 + 7.
        #expect(valid == 24)
        #expect(accepted == valid)
    }
}
