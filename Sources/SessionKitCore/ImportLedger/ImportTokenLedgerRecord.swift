import SessionKitJOSE

/// A ledger's content: token digests, oldest first, at most `capacity` of them.
package struct ImportTokenLedgerRecord: Sendable, Equatable {
    /// The schema version of the payload this build writes.
    package static let schemaVersion = 1

    package private(set) var digests: [String]

    package init(digests: [String] = []) {
        self.digests = digests
    }

    package func contains(_ digest: String) -> Bool {
        digests.contains(digest)
    }

    /// Adds `digest` unless present, dropping the oldest past `capacity`; `false` when present.
    package mutating func insert(_ digest: String, capacity: Int) -> Bool {
        guard !digests.contains(digest) else { return false }
        digests.append(digest)
        if digests.count > max(capacity, 1) { digests.removeFirst(digests.count - max(capacity, 1)) }
        return true
    }

    /// The record framed for the file system (``StoreEnvelope``, kind `CXIL`).
    package func sealed() -> [UInt8] {
        let payload = JSONWriter.serialize(.object(payloadObject))
        return StoreEnvelope.seal(Array(payload.utf8), kind: .importLedger, schemaVersion: Self.schemaVersion)
    }

    private var payloadObject: JSONObject {
        var object = JSONObject()
        _ = object.insert("tokens", .array(digests.map(JSONValue.string)))
        return object
    }

    /// Opens a framed record; damage and newer schemas are typed store errors.
    package static func open(_ bytes: [UInt8]) throws(CredentialStoreError) -> ImportTokenLedgerRecord {
        let kind = StoreEnvelope.Kind.importLedger
        let (_, payload) = try StoreEnvelope.open(bytes, kind: kind, supportedVersion: schemaVersion)
        guard let object = try? JSONParser.parseObject(Array(payload)), case .array(let tokens)? = object["tokens"] else {
            throw .corrupted("the import token ledger payload does not match its schema")
        }
        var digests: [String] = []
        for token in tokens {
            guard case .string(let digest) = token, digest.utf8.count == 64 else {
                throw .corrupted("the import token ledger payload does not match its schema")
            }
            digests.append(digest)
        }
        return ImportTokenLedgerRecord(digests: digests)
    }
}
