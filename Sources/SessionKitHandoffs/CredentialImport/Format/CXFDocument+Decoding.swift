import SessionKitJOSE

extension CXFDocument {
    /// A larger input is refused before parsing.
    public static let maximumSize = 64 << 20

    /// How deep objects and lists may nest in the data: far deeper than any exporter writes.
    ///
    /// The format sets no limit; folders nest as deep as an exporter's folders do, and each
    /// folder costs two levels (its object and its `subCollections` list), below the document's
    /// three (the document, `accounts`, an account). So 1 000 levels hold folders about 495
    /// deep with their items. Deeper data fails as a whole with
    /// ``CXFDecodingError/nestingTooDeep``, never by exhausting a thread's stack: the data is
    /// parsed and its folders walked with stacks on the heap, and the limit bounds everything
    /// else that follows the tree (comparing or releasing a decoded document).
    public static let maximumNestingDepth = 1000

    /// Decodes Credential Exchange Format data item by item, so one bad member loses only what
    /// holds it.
    ///
    /// Only data that is not this format at all fails as a whole: more than ``maximumSize``
    /// bytes, not one strict JSON object (RFC 8259, UTF-8, no duplicate member names), no
    /// readable `version`, a major version none of `supportedVersions` has, or no `accounts`
    /// list; and data nested deeper than ``maximumNestingDepth``. A minor version is purely additive, so data in `1.3` is read by an app that
    /// declares `1.0` (unknown members are ignored) and the newer minor is noted in
    /// ``leniencies``.
    ///
    /// Everything else is decoded entry by entry. An account, collection, item or credential
    /// that breaks a rule (a required member missing, a wrong JSON type, an identifier that is
    /// not base64url, a concealed value in a member the format keeps in the clear) is kept whole
    /// as a ``CXFUndecoded`` with the first broken rule, and the rest imports. Departures whose
    /// meaning is unambiguous are accepted and recorded in ``leniencies`` (see
    /// ``CXFLeniency/Kind``), as other importers accept them. All 17 credential types of
    /// CXF 1.0 are typed; a type from a later version is kept as ``CXFCredential/opaque(_:)``.
    public static func decode(_ bytes: [UInt8], supportedVersions: [CXFVersion] = [.v1]) throws(CXFDecodingError) -> CXFDocument {
        guard bytes.count <= maximumSize else { throw .tooLarge }
        let object: JSONObject
        do {
            object = try JSONParser.parseObject(bytes, maximumDepth: maximumNestingDepth)
        } catch {
            switch error {
            case .notAnObject: throw .notAnObject
            case .nestingTooDeep: throw .nestingTooDeep
            default: throw .invalidJSON
            }
        }
        var reader = CXFReader()
        return try reader.document(JSONFields(object, path: ""), supportedVersions: supportedVersions)
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
