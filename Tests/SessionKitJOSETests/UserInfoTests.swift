import Foundation
import SessionKitJOSE
import Testing

/// UserInfo responses (OIDC Core §5.3): strict JSON, typed standard claims, and a `sub` that must
/// equal the verified id_token's before anything is used (§5.3.2).
@Suite struct UserInfoTests {
    private func decode(_ json: String, subject: String = "248289761001") throws(UserInfoError) -> UserInfo {
        try UserInfo.decode(Array(json.utf8), expectedSubject: subject)
    }

    @Test func theSpecificationsExampleDecodes() throws {
        let info = try decode(
            """
            {"sub": "248289761001", "name": "Jane Doe", "given_name": "Jane", "family_name": "Doe",
             "preferred_username": "j.doe", "email": "janedoe@example.com", "email_verified": true,
             "picture": "http://example.com/janedoe/me.jpg", "locale": "en-US", "updated_at": 1311280970,
             "phone_number": "+1 (555) 555-5555", "address": {"country": "US"}}
            """)
        #expect(info.subject == "248289761001")
        #expect(
            info.profile
                == ProfileClaims(
                    name: "Jane Doe", givenName: "Jane", familyName: "Doe", preferredUsername: "j.doe", email: "janedoe@example.com",
                    emailVerified: true, picture: "http://example.com/janedoe/me.jpg", locale: "en-US",
                    updatedAt: Date(timeIntervalSince1970: 1_311_280_970)))
        #expect(try info.custom("phone_number", as: String.self) == "+1 (555) 555-5555")
        #expect(info.additionalClaims["address"] == .object(["country": .string("US")]))
        #expect(info.additionalClaims["sub"] == nil)
    }

    @Test func anotherSubjectIsRejected() {
        #expect(throws: UserInfoError.subjectMismatch) { try decode(#"{"sub":"someone-else","email":"x@y"}"#) }
        // Exact comparison: no trimming, no case folding.
        #expect(throws: UserInfoError.subjectMismatch) { try decode(#"{"sub":"248289761001 "}"#) }
    }

    @Test func aMissingOrEmptySubjectIsRejected() {
        #expect(throws: UserInfoError.missingClaim) { try decode(#"{"email":"x@y"}"#) }
        #expect(throws: UserInfoError.missingClaim) { try decode(#"{"sub":""}"#, subject: "") }
    }

    @Test(arguments: [
        "", "[]", "null", #"{"sub":248289761001}"#, #"{"sub":"248289761001","sub":"248289761001"}"#,
        #"{"sub":"248289761001","email_verified":"true"}"#, #"{"sub":"248289761001","updated_at":"yesterday"}"#,
        #"{"sub":"248289761001"} trailing"#, "eyJhbGciOiJSUzI1NiJ9.e30.c2ln",
    ])
    func malformedBodiesAreRejected(body: String) {
        #expect(throws: UserInfoError.malformed) { try decode(body) }
    }

    @Test func anOversizedBodyIsRejectedBeforeParsing() {
        let body = [UInt8](repeating: UInt8(ascii: " "), count: UserInfo.maximumSize + 1)
        #expect(throws: UserInfoError.malformed) { try UserInfo.decode(body, expectedSubject: "s") }
    }

    @Test func errorDescriptionsAreTheCodes() {
        let all: [UserInfoError] = [.malformed, .missingClaim, .subjectMismatch]
        #expect(all.map(\.description) == ["malformed", "missing_claim", "sub_mismatch"])
    }
}
