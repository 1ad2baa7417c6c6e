import Foundation
import Testing

@testable import SessionKitJOSE

/// The hash literals the claims parser switches on name exactly the claims they stand for.
@Suite struct ClaimNameDispatchTests {
    private func name(_ text: String, body: (JSONName, UnsafeBufferPointer<UInt8>) -> Void) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            body(JSONName(range: 0..<bytes.count, hash: JSONKey.hash(bytes), unescaped: nil), buffer)
        }
    }

    @Test func everyRegisteredClaimIsFoundByItsName() {
        for claim in RawIDTokenClaims.Claim.allCases {
            let text = claim.name.description
            name(text) { name, buffer in #expect(RawIDTokenClaims.Claim(name, in: buffer) == claim, "\(text)") }
        }
        // Same length, other bytes; a prefix; a name with the right hash but other bytes cannot be forged cheaply.
        for other in ["isx", "su", "nonce ", "Nonce", "email"] {
            name(other) { name, buffer in #expect(RawIDTokenClaims.Claim(name, in: buffer) == nil, "\(other)") }
        }
    }

    @Test func everyProfileClaimIsReadByItsName() throws {
        let json = #"""
            {"name":"N","given_name":"G","family_name":"F","preferred_username":"P","email":"e@x","email_verified":true,
            "picture":"https://p","locale":"en","updated_at":5,"nick":"x"}
            """#
        var profile = ProfileClaims()
        var unread: [String] = []
        let bytes = Array(json.utf8)
        try bytes.withUnsafeBufferPointer { (buffer) throws(JOSEError) in
            try JSONParser.scanObject(buffer, maximumDepth: 4) { (name, parser) throws(JOSEError) in
                if try !profile.read(name, from: &parser) {
                    unread.append(String(decoding: name.bytes(in: buffer), as: UTF8.self))
                    try parser.skipValue()
                }
            }
        }
        #expect(
            profile
                == ProfileClaims(
                    name: "N", givenName: "G", familyName: "F", preferredUsername: "P", email: "e@x", emailVerified: true,
                    picture: "https://p", locale: "en", updatedAt: Date(timeIntervalSince1970: 5)))
        #expect(unread == ["nick"])
    }
}
