import SessionKitCore
import SessionKitJOSE

extension CXFReader {
    /// One credential by its `type`; one that breaks a rule is kept whole as undecodable.
    mutating func credential(_ value: JSONValue, path: String) -> CXFCredential {
        var type: String?
        if case .object(let object) = value, case .string(let name)? = object["type"] { type = name }
        let result = recover(value, path: path, type: type) { (reader: inout CXFReader) throws(JSONFieldProblem) in
            try reader.typedCredential(JSONFields.object(value, path: path))
        }
        switch result {
        case .success(let credential): return credential
        case .failure(let rejected): return .undecodable(rejected.entry)
        }
    }

    private mutating func typedCredential(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFCredential {
        let type = try fields.nonEmptyString("type")
        switch type {
        case "address": return .address(try decodeAddressCredential(fields))
        case "api-key": return .apiKey(try decodeAPIKeyCredential(fields))
        case "basic-auth":
            return .basicAuth(
                CXFBasicAuthCredential(
                    username: try field(fields, "username", expected: .string),
                    password: try secretField(fields, "password", expected: .concealedString)))
        case "credit-card": return .creditCard(try decodeCreditCardCredential(fields))
        case "custom-fields": return .customFields(try customFields(fields))
        case "drivers-license": return .driversLicense(try decodeDriversLicenseCredential(fields))
        case "file":
            return .file(
                CXFFileCredential(
                    id: try identifier(fields, "id"), name: try fields.string("name"),
                    decryptedSize: UInt64(try fields.integer("decryptedSize", in: 0...Self.timestampRange.upperBound)),
                    integrityHash: try base64URL(fields, "integrityHash", maximumBytes: 64)))
        case "generated-password":
            return .generatedPassword(CXFGeneratedPasswordCredential(password: Secret(try fields.string("password"))))
        case "identity-document": return .identityDocument(try decodeIdentityDocumentCredential(fields))
        case "item-reference":
            return .itemReference(CXFItemReferenceCredential(reference: try linkedItem(fields.fields("reference"))))
        case "note":
            guard let content = try secretField(fields, "content", expected: .string) else { throw .missing(fields.memberPath("content")) }
            return .note(CXFNoteCredential(content: content))
        case "passkey": return .passkey(try passkey(fields))
        case "passport": return .passport(try decodePassportCredential(fields))
        case "person-name": return .personName(try decodePersonNameCredential(fields))
        case "ssh-key":
            return .sshKey(
                CXFSSHKeyCredential(
                    keyType: try fields.nonEmptyString("keyType"),
                    privateKey: Secret(try base64URL(fields, "privateKey", maximumBytes: nil)),
                    keyComment: try fields.optionalString("keyComment"), creationDate: try field(fields, "creationDate", expected: .date),
                    expiryDate: try field(fields, "expiryDate", expected: .date),
                    keyGenerationSource: try field(fields, "keyGenerationSource", expected: .string)))
        case "totp":
            // The format says importers must ignore a TOTP with an unknown algorithm: kept, unused.
            guard let algorithm = CXFTOTPCredential.Algorithm(rawValue: try fields.string("algorithm")) else {
                return .opaque(CXFOpaqueCredential(type: type, json: Secret(JSONWriter.serialize(.object(fields.object)))))
            }
            return .totp(
                CXFTOTPCredential(
                    secret: Secret(try base32(fields, "secret")), period: Int(try fields.integer("period", in: 1...255)),
                    digits: Int(try fields.integer("digits", in: 1...255)), algorithm: algorithm,
                    username: try fields.optionalString("username"), issuer: try fields.optionalString("issuer")))
        case "wifi": return .wifi(try decodeWiFiCredential(fields))
        default:
            return .opaque(CXFOpaqueCredential(type: type, json: Secret(JSONWriter.serialize(.object(fields.object)))))
        }
    }

    private mutating func customFields(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFCustomFieldsCredential {
        var id: String?
        if try fields.optionalString("id") != nil { id = try identifier(fields, "id") }
        var values: [CXFField<Secret>] = []
        for field in try fields.objects("fields") { values.append(try anyField(field)) }
        return CXFCustomFieldsCredential(
            id: id, label: try fields.optionalString("label"), fields: values, extensions: try extensions(fields))
    }

    private mutating func passkey(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFPasskeyCredential {
        var extensions: CXFPasskeyCredential.Extensions?
        if let object = try fields.optionalFields("fido2Extensions") { extensions = try fido2Extensions(object) }
        return CXFPasskeyCredential(
            credentialID: try base64URL(fields, "credentialId", maximumBytes: 1023), relyingPartyID: try fields.nonEmptyString("rpId"),
            username: try fields.string("username"), userDisplayName: try fields.string("userDisplayName"),
            userHandle: try base64URL(fields, "userHandle", maximumBytes: 64), key: Secret(try base64URL(fields, "key", maximumBytes: nil)),
            fido2Extensions: extensions)
    }

    private mutating func fido2Extensions(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFPasskeyCredential.Extensions {
        var extensions = CXFPasskeyCredential.Extensions(payments: try fields.optionalBool("payments"))
        if let hmac = try fields.optionalFields("hmacCredentials") {
            extensions.hmacCredentials = .init(
                algorithm: try hmac.nonEmptyString("algorithm"),
                credentialWithUV: Secret(try base64URL(hmac, "credWithUV", maximumBytes: nil)),
                credentialWithoutUV: Secret(try base64URL(hmac, "credWithoutUV", maximumBytes: nil)))
        }
        if try fields.optionalString("credBlob") != nil {
            extensions.credentialBlob = Secret(try base64URL(fields, "credBlob", maximumBytes: nil))
        }
        if let blob = try fields.optionalFields("largeBlob") {
            extensions.largeBlob = .init(
                uncompressedSize: UInt64(try blob.integer("uncompressedSize", in: 0...Self.timestampRange.upperBound)),
                data: Secret(try base64URL(blob, "data", maximumBytes: nil)))
        }
        return extensions
    }
}
