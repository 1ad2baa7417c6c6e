import Foundation
import Testing

@testable import SessionKitHandoffs

@Suite struct CredentialImportIntakeTests {
    let intake = CredentialImportIntake(activityType: "system.credential-exchange", tokenKey: "importToken")

    private func activity(type: String = "system.credential-exchange", _ userInfo: [String: CredentialImportActivity.Value])
        -> CredentialImportActivity
    {
        CredentialImportActivity(activityType: type, userInfo: userInfo)
    }

    @Test func acceptsAUUIDObject() throws {
        let uuid = UUID(uuidString: Fixtures.tokenText)!
        #expect(try intake.token(from: activity(["importToken": .uuid(uuid)])) == CredentialImportToken(uuid))
    }

    @Test(arguments: [Fixtures.tokenText, Fixtures.tokenText.lowercased()])
    func acceptsTheCanonicalTextForm(_ text: String) throws {
        #expect(try intake.token(from: activity(["importToken": .string(text)])) == Fixtures.token)
    }

    @Test func ignoresOtherKeys() throws {
        let token = try intake.token(from: activity(["importToken": .string(Fixtures.tokenText), "other": .other, "x": .string("y")]))
        #expect(token == Fixtures.token)
    }

    @Test func rejectsAnotherActivityType() {
        #expect(throws: CredentialImportIntakeError.wrongActivityType) {
            try intake.token(from: activity(type: "NSUserActivityTypeBrowsingWeb", ["importToken": .string(Fixtures.tokenText)]))
        }
    }

    @Test func rejectsAMissingToken() {
        #expect(throws: CredentialImportIntakeError.missingToken) { try intake.token(from: activity([:])) }
        #expect(throws: CredentialImportIntakeError.missingToken) {
            try intake.token(from: activity(["ImportToken": .string(Fixtures.tokenText)]))
        }
    }

    @Test(arguments: [
        "", "not-a-uuid", "6F1A2B3C12344ABC8DEF0123456789AB", "{6F1A2B3C-1234-4ABC-8DEF-0123456789AB}",
        " 6F1A2B3C-1234-4ABC-8DEF-0123456789AB", "6F1A2B3C-1234-4ABC-8DEF-0123456789AG", "6F1A2B3C-1234-4ABC-8DEF-0123456789ABC",
        "6F1A2B3C-1234-4ABC-8DEF_0123456789AB",
        // Forms Foundation's parser on Linux accepts, each as a different UUID (found by fuzzing).
        "-F1A2B3C-1234-4ABC-8DEF-0123456789AB", "+F1A2B3C-1234-4ABC-8DEF-0123456789AB", " F1A2B3C-1234-4ABC-8DEF-0123456789AB",
        "0x1A2B3C-1234-4ABC-8DEF-0123456789AB",
    ])
    func rejectsAMalformedToken(_ text: String) {
        #expect(throws: CredentialImportIntakeError.malformedToken) { try intake.token(from: activity(["importToken": .string(text)])) }
    }

    @Test func parsedTextIsTheSameUUIDFoundationPrints() throws {
        for text in [Fixtures.tokenText, "00000000-0000-0000-0000-000000000000", "ffffffff-ffff-ffff-ffff-ffffffffffff"] {
            let token = try #require(CredentialImportToken(uuidString: text))
            #expect(token.uuid.uuidString == text.uppercased())
            #expect(token.uuid == UUID(uuidString: text))
        }
    }

    @Test func rejectsATokenOfAnotherKind() {
        #expect(throws: CredentialImportIntakeError.malformedToken) { try intake.token(from: activity(["importToken": .other])) }
    }
}
