import Foundation
import SessionKitHandoffs

/// Values with recognisable secrets, so a rendering that leaks one is caught.
enum Fixtures {
    static let reference = "access-request-reference-SECRET-\u{1F511}-\"quoted\"\\slash"
    static let credentialReferences = ["op-credential-SECRET-1", "op-credential-SECRET-2", "op-credential-SECRET-3"]

    static let tokenText = "6F1A2B3C-1234-4ABC-8DEF-0123456789AB"
    static let token = CredentialImportToken(uuidString: tokenText)!

    /// Grant JSON as text.
    static func grant(state: String = "resolved", resolved: String) -> [UInt8] {
        Array("{\"path\":\"vault/requests/7\",\"state\":\"\(state)\",\"resolved\":\(resolved)}".utf8)
    }

    /// A whole CXF document with one account, one item, and `credentials`, in `version`.
    static func cxf(credentials: String, version: String = "{\"major\":1,\"minor\":0}", item: String = "") -> [UInt8] {
        let json =
            "{\"version\":\(version),\"exporterRpId\":\"exporter.example\",\"exporterDisplayName\":\"Exporter\","
            + "\"timestamp\":1705228800,\"accounts\":[{\"id\":\"YWNjb3VudA\",\"username\":\"jane\",\"email\":\"jane@example.com\","
            + "\"items\":[{\"id\":\"aXRlbQ\",\"title\":\"Item\"\(item),\"credentials\":[\(credentials)]}]}]}"
        return Array(json.utf8)
    }

    static let password = "hunter2-SECRET-password"
    static let totpSecret = "JBSWY3DPEHPK3PXP"
    static let passkeyKey = "cGFzc2tleS1wcml2YXRlLWtleS1TRUNSRVQ"
    static let noteText = "note-SECRET-recovery-code"

    static let basicAuth =
        "{\"type\":\"basic-auth\",\"username\":{\"fieldType\":\"string\",\"value\":\"jane\",\"label\":\"Email\",\"id\":\"dXNlcg\"},"
        + "\"password\":{\"fieldType\":\"concealed-string\",\"value\":\"\(password)\"}}"
    static let passkey =
        "{\"type\":\"passkey\",\"credentialId\":\"Y3JlZGVudGlhbA\",\"rpId\":\"example.com\",\"username\":\"jane\","
        + "\"userDisplayName\":\"Jane\",\"userHandle\":\"dXNlci1oYW5kbGU\",\"key\":\"\(passkeyKey)\","
        + "\"fido2Extensions\":{\"credBlob\":\"YmxvYi1TRUNSRVQ\"}}"
    static let totp =
        "{\"type\":\"totp\",\"secret\":\"\(totpSecret)\",\"period\":30,\"digits\":6,\"algorithm\":\"sha256\",\"issuer\":\"Example\","
        + "\"username\":\"jane\"}"
    static let note = "{\"type\":\"note\",\"content\":{\"fieldType\":\"string\",\"value\":\"\(noteText)\"}}"
    static let creditCard = "{\"type\":\"credit-card\",\"number\":{\"fieldType\":\"concealed-string\",\"value\":\"4111-SECRET\"}}"

    static let secrets = [
        reference, credentialReferences[0], credentialReferences[1], credentialReferences[2], tokenText, tokenText.lowercased(),
        password, totpSecret, passkeyKey, noteText, "4111-SECRET", "YmxvYi1TRUNSRVQ",
    ]
}
