import Foundation
import SessionKitCore
import SessionKitJOSE

/// One decoding pass over a CXF document: the structure (header, accounts, collections, items),
/// the member encodings, and the leniencies applied so far.
///
/// Each entry is read inside ``recover(_:type:_:)``: a rule it breaks turns it into a
/// ``CXFUndecoded`` and rolls back the leniencies recorded inside it, instead of failing the
/// document.
struct CXFReader {
    /// An entry that broke a rule, as the failure of ``recover(_:path:type:_:)``.
    struct Rejected: Error {
        let entry: CXFUndecoded
    }

    private(set) var leniencies: [CXFLeniency] = []

    /// Seconds since 1970 up to 2^53, where a `Double` is still exact.
    static let timestampRange: ClosedRange<Int64> = 0...(1 << 53)

    // MARK: Structure

    mutating func document(_ header: JSONFields, supportedVersions: [CXFVersion]) throws(CXFDecodingError) -> CXFDocument {
        let version: CXFVersion
        do throws(JSONFieldProblem) {
            let fields = try header.fields("version")
            version = CXFVersion(
                major: Int(try fields.integer("major", in: 0...Int64(Int32.max))),
                minor: Int(try fields.integer("minor", in: 0...Int64(Int32.max))))
        } catch {
            throw CXFDecodingError(error)
        }
        let sameMajor = supportedVersions.filter { $0.major == version.major }
        guard let newestDeclared = sameMajor.max() else { throw .unsupportedVersion(found: version, supported: supportedVersions) }
        if version.minor > newestDeclared.minor { note(.newerMinorVersion, "version") }
        let accountList: [JSONValue]
        do throws(JSONFieldProblem) {
            accountList = try header.array("accounts")
        } catch {
            throw CXFDecodingError(error)
        }
        var undecodable: [CXFUndecoded] = []
        let relyingPartyID = recoverMember(header, "exporterRpId", into: &undecodable) { (fields) throws(JSONFieldProblem) in
            try fields.string("exporterRpId")
        }
        let displayName = recoverMember(header, "exporterDisplayName", into: &undecodable) { (fields) throws(JSONFieldProblem) in
            try fields.string("exporterDisplayName")
        }
        var timestamp: Date?
        let mark = leniencies.count
        do throws(JSONFieldProblem) {
            guard let date = try optionalDate(header, "timestamp") else { throw .missing("timestamp") }
            timestamp = date
        } catch {
            leniencies.removeSubrange(mark...)
            let value = header.object["timestamp"] ?? .null
            undecodable.append(CXFUndecoded(path: "timestamp", problem: CXFDecodingError(error), json: Secret(JSONWriter.serialize(value))))
        }
        var accounts: [CXFAccount] = []
        for (index, value) in accountList.enumerated() {
            let path = "accounts[\(index)]"
            switch recover(
                value, path: path,
                { (reader: inout CXFReader) throws(JSONFieldProblem) in
                    try reader.account(JSONFields.object(value, path: path))
                })
            {
            case .success(let account): accounts.append(account)
            case .failure(let rejected): undecodable.append(rejected.entry)
            }
        }
        return CXFDocument(
            version: version, exporterRelyingPartyID: relyingPartyID ?? "", exporterDisplayName: displayName ?? "", timestamp: timestamp,
            accounts: accounts, undecodable: undecodable, leniencies: leniencies)
    }

    private mutating func account(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFAccount {
        let id = try identifier(fields, "id")
        let username = try fields.string("username")
        let email = try fields.string("email")
        let fullName = try fields.optionalString("fullName")
        let itemList = try fields.array("items")
        let extensions = try self.extensions(fields)
        var undecodable: [CXFUndecoded] = []
        var collections: [CXFCollection] = []
        for (index, value) in (try fields.optionalArray("collections") ?? []).enumerated() {
            let path = fields.memberPath("collections") + "[\(index)]"
            switch recover(
                value, path: path,
                { (reader: inout CXFReader) throws(JSONFieldProblem) in
                    try reader.collection(JSONFields.object(value, path: path))
                })
            {
            case .success(let collection): collections.append(collection)
            case .failure(let rejected): undecodable.append(rejected.entry)
            }
        }
        var items: [CXFItem] = []
        for (index, value) in itemList.enumerated() {
            let path = fields.memberPath("items") + "[\(index)]"
            switch recover(
                value, path: path,
                { (reader: inout CXFReader) throws(JSONFieldProblem) in
                    try reader.item(JSONFields.object(value, path: path))
                })
            {
            case .success(let item): items.append(item)
            case .failure(let rejected): undecodable.append(rejected.entry)
            }
        }
        return CXFAccount(
            id: id, username: username, email: email, fullName: fullName, collections: collections, items: items, extensions: extensions,
            undecodable: undecodable)
    }

    /// A folder with every folder inside it, read depth first in document order (the first broken
    /// rule found is the one a recursive reading would find). Folders may nest as deep as the
    /// parser allowed, so the folders still open are kept on a stack on the heap, not the
    /// thread's.
    private mutating func collection(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFCollection {
        var open = [OpenCollection(fields: fields, subCollections: try fields.optionalObjects("subCollections"))]
        while true {
            let innermost = open[open.count - 1]
            if innermost.read.count < innermost.subCollections.count {
                let sub = innermost.subCollections[innermost.read.count]
                open.append(OpenCollection(fields: sub, subCollections: try sub.optionalObjects("subCollections")))
                continue
            }
            open.removeLast()
            let collection = try collection(innermost.fields, subCollections: innermost.read)
            guard !open.isEmpty else { return collection }
            open[open.count - 1].read.append(collection)
        }
    }

    /// A folder whose sub-folders are still being read.
    private struct OpenCollection {
        let fields: JSONFields
        let subCollections: [JSONFields]
        var read: [CXFCollection] = []
    }

    /// One folder's own members, around `subCollections` already read.
    private mutating func collection(_ fields: JSONFields, subCollections: [CXFCollection]) throws(JSONFieldProblem) -> CXFCollection {
        var items: [CXFLinkedItem] = []
        for link in try fields.objects("items") { items.append(try linkedItem(link)) }
        return CXFCollection(
            id: try identifier(fields, "id"), title: try fields.string("title"), subtitle: try fields.optionalString("subtitle"),
            createdAt: try optionalDate(fields, "creationAt"), modifiedAt: try optionalDate(fields, "modifiedAt"), items: items,
            subCollections: subCollections, extensions: try extensions(fields))
    }

    mutating func linkedItem(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFLinkedItem {
        var account: String?
        if try fields.optionalString("account") != nil { account = try identifier(fields, "account") }
        return CXFLinkedItem(item: try identifier(fields, "item"), account: account)
    }

    private mutating func item(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFItem {
        let id = try identifier(fields, "id")
        let title = try fields.string("title")
        let credentialList = try fields.array("credentials")
        var scope: CXFCredentialScope?
        if let scopeFields = try fields.optionalFields("scope") { scope = try self.scope(scopeFields) }
        var credentials: [CXFCredential] = []
        for (index, value) in credentialList.enumerated() {
            credentials.append(credential(value, path: fields.memberPath("credentials") + "[\(index)]"))
        }
        return CXFItem(
            id: id, title: title, subtitle: try fields.optionalString("subtitle"), createdAt: try optionalDate(fields, "creationAt"),
            modifiedAt: try optionalDate(fields, "modifiedAt"), favorite: try fields.optionalBool("favorite"), scope: scope,
            credentials: credentials, tags: try fields.strings("tags"), extensions: try extensions(fields))
    }

    private mutating func scope(_ fields: JSONFields) throws(JSONFieldProblem) -> CXFCredentialScope {
        var apps: [CXFCredentialScope.AndroidApp] = []
        for app in try fields.optionalObjects("androidApps") {
            var fingerprint: String?
            var algorithm: String?
            if let certificate = try app.optionalFields("certificate") {
                fingerprint = try base64URL(certificate, "fingerprint", maximumBytes: 64)
                if certificate.object["hashAlg"] == nil, try certificate.optionalString("hashAlgorithm") != nil {
                    note(.hashAlgorithmMemberName, certificate.memberPath("hashAlgorithm"))
                    algorithm = try certificate.nonEmptyString("hashAlgorithm")
                } else {
                    algorithm = try certificate.nonEmptyString("hashAlg")
                }
            }
            apps.append(
                CXFCredentialScope.AndroidApp(
                    bundleID: try app.nonEmptyString("bundleId"), name: try app.optionalString("name"), certificateFingerprint: fingerprint,
                    certificateHashAlgorithm: algorithm))
        }
        return CXFCredentialScope(urls: try fields.strings("urls"), androidApps: apps)
    }

    mutating func extensions(_ fields: JSONFields) throws(JSONFieldProblem) -> [CXFExtension] {
        var extensions: [CXFExtension] = []
        for entry in try fields.optionalObjects("extensions") {
            extensions.append(
                CXFExtension(name: try entry.nonEmptyString("name"), json: Secret(JSONWriter.serialize(.object(entry.object)))))
        }
        return extensions
    }

    // MARK: Recovery

    /// Runs `decode` on `value`; a broken rule becomes an undecodable entry holding `value`, and
    /// the leniencies recorded inside it are dropped with it.
    mutating func recover<Value>(
        _ value: JSONValue, path: String, type: String? = nil, _ decode: (inout CXFReader) throws(JSONFieldProblem) -> Value
    ) -> Result<Value, Rejected> {
        let mark = leniencies.count
        do throws(JSONFieldProblem) {
            return .success(try decode(&self))
        } catch {
            leniencies.removeSubrange(mark...)
            let entry = CXFUndecoded(path: path, type: type, problem: CXFDecodingError(error), json: Secret(JSONWriter.serialize(value)))
            return .failure(Rejected(entry: entry))
        }
    }

    /// A header member read by `decode`; a broken one is recorded in `undecodable` (with its
    /// value, or `null` when absent) and comes back `nil`.
    private func recoverMember<Value>(
        _ fields: JSONFields, _ name: String, into undecodable: inout [CXFUndecoded],
        _ decode: (JSONFields) throws(JSONFieldProblem) -> Value
    ) -> Value? {
        do throws(JSONFieldProblem) {
            return try decode(fields)
        } catch {
            let value = fields.object[name] ?? .null
            undecodable.append(CXFUndecoded(path: name, problem: CXFDecodingError(error), json: Secret(JSONWriter.serialize(value))))
            return nil
        }
    }

    mutating func note(_ kind: CXFLeniency.Kind, _ path: String) {
        leniencies.append(CXFLeniency(kind: kind, path: path))
    }

    // MARK: Encodings

    /// A UNIX time in seconds; a fraction (as a `secondsSince1970` encoder writes it) is kept
    /// and noted.
    mutating func optionalDate(_ fields: JSONFields, _ name: String) throws(JSONFieldProblem) -> Date? {
        guard let value = fields.object[name], value != .null else { return nil }
        guard case .number(let seconds) = value else { throw .wrongType(fields.memberPath(name)) }
        guard seconds.isFinite, seconds >= 0, seconds <= Double(Self.timestampRange.upperBound) else {
            throw .invalidValue(fields.memberPath(name))
        }
        if seconds != seconds.rounded(.down) { note(.fractionalTimestamp, fields.memberPath(name)) }
        return Date(timeIntervalSince1970: seconds)
    }

    /// A machine-generated identifier: base64url of 1 to 64 bytes.
    mutating func identifier(_ fields: JSONFields, _ name: String) throws(JSONFieldProblem) -> String {
        try base64URL(fields, name, maximumBytes: 64)
    }

    /// Member `name` as base64url of at least one byte and at most `maximumBytes`: the text as
    /// written when canonical, else the canonical text of the same bytes, with the leniency
    /// noted (padding, non-zero trailing bits, the standard alphabet).
    mutating func base64URL(_ fields: JSONFields, _ name: String, maximumBytes: Int?) throws(JSONFieldProblem) -> String {
        let text = try fields.string(name)
        let path = fields.memberPath(name)
        if let bytes = try? Base64URL.decode(text) {
            guard !bytes.isEmpty, bytes.count <= maximumBytes ?? Int.max else { throw .invalidValue(path) }
            return text
        }
        guard let (bytes, kinds) = Self.lenientBase64(text), !bytes.isEmpty, bytes.count <= maximumBytes ?? Int.max else {
            throw .invalidValue(path)
        }
        for kind in CXFLeniency.Kind.allCases where kinds.contains(kind) { note(kind, path) }
        return Base64URL.encode(bytes)
    }

    /// Base64 in either alphabet, with or without padding, ignoring unused trailing bits; `nil`
    /// for anything else.
    static func lenientBase64(_ text: String) -> ([UInt8], Set<CXFLeniency.Kind>)? {
        var characters = Array(text.utf8)
        var kinds = Set<CXFLeniency.Kind>()
        var padding = 0
        while characters.last == UInt8(ascii: "=") {
            characters.removeLast()
            padding += 1
        }
        if padding > 0 {
            guard padding <= 2, (characters.count + padding) % 4 == 0 else { return nil }
            kinds.insert(.paddedBase64URL)
        }
        guard characters.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in characters {
            let value: UInt32
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(character - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            case UInt8(ascii: "+"):
                value = 62
                kinds.insert(.standardBase64)
            case UInt8(ascii: "/"):
                value = 63
                kinds.insert(.standardBase64)
            default: return nil
            }
            accumulator = (accumulator << 6) | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        if accumulator != 0 { kinds.insert(.base64URLTrailingBits) }
        return (bytes, kinds)
    }

    /// Member `name` as RFC 4648 Base32: the upper-case alphabet, in a length whole characters
    /// of 5-bit groups can have, padded with `=` to whole 8-character blocks or not at all.
    /// Lower case and spaces are accepted (read upper-cased, without the spaces) and noted.
    mutating func base32(_ fields: JSONFields, _ name: String) throws(JSONFieldProblem) -> String {
        let text = try fields.string(name)
        if Self.isCanonicalBase32(text) { return text }
        let normalized = String(text.filter { $0 != " " }.uppercased())
        guard Self.isCanonicalBase32(normalized) else { throw .invalidValue(fields.memberPath(name)) }
        note(.base32CaseOrSpaces, fields.memberPath(name))
        return normalized
    }

    private static func isCanonicalBase32(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let body = bytes.prefix { $0 != UInt8(ascii: "=") }
        let padding = bytes.count - body.count
        // A final block holds 1 to 5 bytes: 2, 4, 5, 7 or 8 characters, padded by 6, 4, 3, 1 or 0.
        let paddingForRemainder: [Int: Int] = [0: 0, 2: 6, 4: 4, 5: 3, 7: 1]
        guard !body.isEmpty, body.allSatisfy({ (0x41...0x5A).contains($0) || (0x32...0x37).contains($0) }),
            let expectedPadding = paddingForRemainder[body.count % 8], padding == 0 || padding == expectedPadding,
            bytes[body.count...].allSatisfy({ $0 == UInt8(ascii: "=") })
        else { return false }
        return true
    }

    // MARK: Editable fields

    /// An `EditableField` member kept in the clear: any declared type but `concealed-string`
    /// (a value the exporter conceals is never put where it would print), the type kept.
    mutating func field(_ fields: JSONFields, _ name: String, expected: CXFFieldType) throws(JSONFieldProblem) -> CXFField<String>? {
        guard let field = try fields.optionalFields(name) else { return nil }
        let type = CXFFieldType(rawValue: try field.nonEmptyString("fieldType"))
        guard type != .concealedString || expected == .concealedString else { throw .invalidValue(field.memberPath("fieldType")) }
        return try editable(field, type: type)
    }

    /// An `EditableField` member kept as a secret: of its expected type, `concealed-string`, or
    /// `string` where `concealed-string` is due (noted).
    mutating func secretField(_ fields: JSONFields, _ name: String, expected: CXFFieldType) throws(JSONFieldProblem) -> CXFField<Secret>? {
        guard let field = try fields.optionalFields(name) else { return nil }
        let type = CXFFieldType(rawValue: try field.nonEmptyString("fieldType"))
        if type == .string, expected == .concealedString {
            note(.stringForConcealedField, field.memberPath("fieldType"))
        } else if type != expected, type != .concealedString {
            throw .invalidValue(field.memberPath("fieldType"))
        }
        return try editable(field, type: type).map(Secret.init)
    }

    /// An `EditableField` of any declared type, its value kept as a secret.
    mutating func anyField(_ field: JSONFields) throws(JSONFieldProblem) -> CXFField<Secret> {
        try editable(field, type: CXFFieldType(rawValue: try field.nonEmptyString("fieldType"))).map(Secret.init)
    }

    private mutating func editable(_ field: JSONFields, type: CXFFieldType) throws(JSONFieldProblem) -> CXFField<String> {
        var id: String?
        if try field.optionalString("id") != nil { id = try identifier(field, "id") }
        return CXFField(
            value: try field.string("value"), fieldType: type, id: id, label: try field.optionalString("label"),
            extensions: try extensions(field))
    }
}

extension CXFField {
    /// The same field with its value transformed.
    func map<Other>(_ transform: (Value) -> Other) -> CXFField<Other> {
        CXFField<Other>(value: transform(value), fieldType: fieldType, id: id, label: label, extensions: extensions)
    }
}
