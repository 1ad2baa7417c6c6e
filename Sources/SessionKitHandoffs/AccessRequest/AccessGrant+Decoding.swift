import SessionKitJOSE

extension AccessGrant {
    /// No grant comes near this; a larger input is refused before parsing.
    public static let maximumSize = 1 << 20

    /// Decodes a grant strictly.
    ///
    /// `path`, `state` and `resolved` are required, as in 1Password's own type; `resolved` is a
    /// list (possibly empty) of objects with an optional string `entryId` and a `reference` that
    /// is either `{"reference": "<string>"}` (today's protocol) or the string itself (a later
    /// version). Unknown members are ignored; anything else that does not fit is a typed error,
    /// never a crash.
    ///
    /// Two entries with the same `entryId` are refused, where 1Password's sample would keep one
    /// of them: matching by id must be exact, and guessing which of two logins answers a
    /// requested entry could hand the app the wrong credential.
    public static func decode(_ bytes: [UInt8]) throws(AccessGrantDecodingError) -> AccessGrant {
        guard bytes.count <= maximumSize else { throw .tooLarge }
        let object: JSONObject
        do {
            object = try JSONParser.parseObject(bytes)
        } catch {
            throw error == .notAnObject ? .notAnObject : .invalidJSON
        }
        let path: String
        let stateName: String
        var entries: [Entry] = []
        do throws(JSONFieldProblem) {
            let fields = JSONFields(object, path: "")
            path = try fields.string("path")
            stateName = try fields.string("state")
            // Required, as in 1Password's type; `null` is not a list.
            if case .null? = object["resolved"] { throw .wrongType("resolved") }
            for entry in try fields.objects("resolved") {
                entries.append(Entry(entryID: try entryID(entry), reference: try reference(entry)))
            }
        } catch {
            throw AccessGrantDecodingError(error)
        }
        guard let state = State(rawValue: stateName) else { throw .unknownState }
        var seen = Set<String>()
        for case let id? in entries.map(\.entryID) where !seen.insert(id).inserted {
            throw .duplicateEntryID
        }
        return AccessGrant(path: path, state: state, resolved: entries)
    }

    private static func entryID(_ entry: JSONFields) throws(JSONFieldProblem) -> String? {
        guard let id = try entry.optionalString("entryId") else { return nil }
        guard !id.isEmpty else { throw .invalidValue(entry.memberPath("entryId")) }
        return id
    }

    private static func reference(_ entry: JSONFields) throws(JSONFieldProblem) -> CredentialReference {
        let path = entry.memberPath("reference")
        let text: String
        switch entry.object["reference"] {
        case nil, .null?:
            throw .missing(path)
        case .string(let plain)?:
            text = plain
        case .object(let wrapped)?:
            text = try JSONFields(wrapped, path: path).string("reference")
        case _?:
            throw .wrongType(path)
        }
        guard !text.isEmpty else { throw .invalidValue(path) }
        return CredentialReference(text)
    }
}

extension AccessGrantDecodingError {
    init(_ problem: JSONFieldProblem) {
        switch problem {
        case .missing(let path): self = .missingField(path)
        case .wrongType(let path): self = .wrongType(path)
        case .invalidValue(let path): self = .invalidValue(path)
        }
    }
}
