import Foundation
import SessionKit
import SessionKitJOSE

extension CXFDocument {
    /// A larger input is refused before parsing.
    public static let maximumSize = 64 << 20

    /// Decodes Credential Exchange Format data strictly, refusing any version not in
    /// `supportedVersions` before looking at the rest.
    ///
    /// Required members must be present with their types; identifiers must be canonical
    /// base64url; a field's `fieldType` must fit its member (`concealed-string` for a password).
    /// `basic-auth`, `passkey`, `totp` and `note` are decoded; any other type, and a `totp` whose
    /// algorithm is unknown (which the format says importers must not use), is kept whole as an
    /// opaque credential instead of failing the import. Unknown members are ignored. Built on the
    /// package's strict JSON parser: duplicate member names and invalid UTF-8 are refused.
    public static func decode(_ bytes: [UInt8], supportedVersions: [CXFVersion] = [.v1]) throws(CXFDecodingError) -> CXFDocument {
        guard bytes.count <= maximumSize else { throw .tooLarge }
        let object: JSONObject
        do {
            object = try JSONParser.parseObject(bytes)
        } catch {
            throw error == .notAnObject ? .notAnObject : .invalidJSON
        }
        let header = JSONFields(object, path: "")
        let version: CXFVersion
        do throws(JSONFieldProblem) {
            version = try decodeVersion(header.fields("version"))
        } catch {
            throw CXFDecodingError(error)
        }
        guard supportedVersions.contains(version) else { throw .unsupportedVersion(found: version, supported: supportedVersions) }
        do throws(JSONFieldProblem) {
            return CXFDocument(
                version: version, exporterRelyingPartyID: try header.string("exporterRpId"),
                exporterDisplayName: try header.string("exporterDisplayName"),
                timestamp: try date(header.integer("timestamp", in: timestampRange)),
                accounts: try header.objects("accounts").map(decodeAccount))
        } catch {
            throw CXFDecodingError(error)
        }
    }

    /// Seconds since 1970 up to 2^53, where a `Double` is still exact.
    static let timestampRange: ClosedRange<Int64> = 0...(1 << 53)

    private static func date(_ seconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    private static func decodeVersion(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFVersion {
        CXFVersion(
            major: Int(try fields.integer("major", in: 0...Int64(Int32.max))),
            minor: Int(try fields.integer("minor", in: 0...Int64(Int32.max))))
    }

    private static func decodeAccount(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFAccount {
        CXFAccount(
            id: try identifier(fields, "id"), username: try fields.string("username"), email: try fields.string("email"),
            fullName: try fields.optionalString("fullName"), items: try fields.objects("items").map(decodeItem))
    }

    private static func decodeItem(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFItem {
        CXFItem(
            id: try identifier(fields, "id"), title: try fields.string("title"), subtitle: try fields.optionalString("subtitle"),
            createdAt: try fields.optionalInteger("creationAt", in: timestampRange).map(date),
            modifiedAt: try fields.optionalInteger("modifiedAt", in: timestampRange).map(date),
            favorite: try fields.optionalBool("favorite"), scope: try fields.optionalFields("scope").map(decodeScope),
            credentials: try fields.objects("credentials").map(decodeCredential), tags: try fields.strings("tags"))
    }

    private static func decodeScope(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFCredentialScope {
        var apps: [CXFCredentialScope.AndroidApp] = []
        for app in try fields.optionalObjects("androidApps") {
            let certificate = try app.optionalFields("certificate")
            apps.append(
                CXFCredentialScope.AndroidApp(
                    bundleID: try app.nonEmptyString("bundleId"), name: try app.optionalString("name"),
                    certificateFingerprint: try certificate.map { (fields) throws(JSONFieldProblem) in
                        try base64URL(fields, "fingerprint", maximumBytes: 64)
                    },
                    certificateHashAlgorithm: try certificate.map { (fields) throws(JSONFieldProblem) in
                        try fields.nonEmptyString("hashAlgorithm")
                    }))
        }
        return CXFCredentialScope(urls: try fields.strings("urls"), androidApps: apps)
    }

    // MARK: Credentials

    private static func decodeCredential(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFCredential {
        let type = try fields.nonEmptyString("type")
        switch type {
        case "basic-auth":
            return .basicAuth(
                CXFBasicAuthCredential(
                    username: try field(fields, "username", types: ["string", "email"]),
                    password: try field(fields, "password", types: ["concealed-string"]).map { $0.map(Secret.init) }))
        case "passkey":
            return .passkey(
                CXFPasskeyCredential(
                    credentialID: try base64URL(fields, "credentialId", maximumBytes: 1023),
                    relyingPartyID: try fields.nonEmptyString("rpId"), username: try fields.string("username"),
                    userDisplayName: try fields.string("userDisplayName"),
                    userHandle: try base64URL(fields, "userHandle", maximumBytes: 64),
                    key: Secret(try base64URL(fields, "key", maximumBytes: nil)),
                    fido2Extensions: try fields.optionalFields("fido2Extensions").map { Secret(JSONWriter.serialize(.object($0.object))) }))
        case "totp":
            guard let algorithm = CXFTOTPCredential.Algorithm(rawValue: try fields.string("algorithm")) else {
                return .opaque(opaque(type, fields))
            }
            return .totp(
                CXFTOTPCredential(
                    secret: Secret(try base32(fields, "secret")), period: Int(try fields.integer("period", in: 1...3600)),
                    digits: Int(try fields.integer("digits", in: 1...10)), algorithm: algorithm,
                    username: try fields.optionalString("username"), issuer: try fields.optionalString("issuer")))
        case "note":
            guard let content = try field(fields, "content", types: ["string"]) else { throw .missing(fields.memberPath("content")) }
            return .note(CXFNoteCredential(content: content.map(Secret.init)))
        default:
            return .opaque(opaque(type, fields))
        }
    }

    private static func opaque(_ type: String, _ fields: JSONFields) -> CXFOpaqueCredential {
        CXFOpaqueCredential(type: type, json: Secret(JSONWriter.serialize(.object(fields.object))))
    }

    /// An `EditableField` member: `fieldType` must be one of `types`, `value` a string.
    private static func field(_ fields: JSONFields, _ name: String, types: Set<String>) throws(JSONFieldProblem) -> CXFField<String>? {
        guard let field = try fields.optionalFields(name) else { return nil }
        guard types.contains(try field.string("fieldType")) else { throw .invalidValue(field.memberPath("fieldType")) }
        var id: String?
        if try field.optionalString("id") != nil { id = try base64URL(field, "id", maximumBytes: 64) }
        return CXFField(value: try field.string("value"), id: id, label: try field.optionalString("label"))
    }

    // MARK: Encodings

    /// A machine-generated identifier: canonical base64url of 1 to 64 bytes.
    private static func identifier(_ fields: JSONFields, _ name: String) throws(JSONFieldProblem) -> String {
        try base64URL(fields, name, maximumBytes: 64)
    }

    /// Member `name` as canonical unpadded base64url of at least one byte and at most
    /// `maximumBytes`; the text is returned as written.
    private static func base64URL(_ fields: JSONFields, _ name: String, maximumBytes: Int?) throws(JSONFieldProblem) -> String {
        let text = try fields.string(name)
        guard let bytes = try? Base64URL.decode(text), !bytes.isEmpty, bytes.count <= maximumBytes ?? Int.max else {
            throw .invalidValue(fields.memberPath(name))
        }
        return text
    }

    /// Member `name` as RFC 4648 Base32: the upper-case alphabet, in a length whole characters
    /// of 5-bit groups can have, padded with `=` to whole 8-character blocks or not at all.
    private static func base32(_ fields: JSONFields, _ name: String) throws(JSONFieldProblem) -> String {
        let text = try fields.string(name)
        let bytes = Array(text.utf8)
        let body = bytes.prefix { $0 != UInt8(ascii: "=") }
        let padding = bytes.count - body.count
        // A final block holds 1 to 5 bytes: 2, 4, 5, 7 or 8 characters, padded by 6, 4, 3, 1 or 0.
        let paddingForRemainder: [Int: Int] = [0: 0, 2: 6, 4: 4, 5: 3, 7: 1]
        guard !body.isEmpty, body.allSatisfy({ (0x41...0x5A).contains($0) || (0x32...0x37).contains($0) }),
            let expectedPadding = paddingForRemainder[body.count % 8], padding == 0 || padding == expectedPadding,
            bytes[body.count...].allSatisfy({ $0 == UInt8(ascii: "=") })
        else {
            throw .invalidValue(fields.memberPath(name))
        }
        return text
    }
}

extension CXFField {
    /// The same field with its value transformed.
    fileprivate func map<Other>(_ transform: (Value) -> Other) -> CXFField<Other> {
        CXFField<Other>(value: transform(value), id: id, label: label)
    }
}

extension CXFDecodingError {
    init(_ problem: JSONFieldProblem) {
        switch problem {
        case .missing(let path): self = .missingField(path)
        case .wrongType(let path): self = .wrongType(path)
        case .invalidValue(let path): self = .invalidValue(path)
        }
    }
}
