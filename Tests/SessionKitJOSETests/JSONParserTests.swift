import Testing

@testable import SessionKitJOSE

@Suite struct JSONParserTests {
    private func parse(_ text: String, depth: Int = 32) throws(JOSEError) -> JSONValue {
        try JSONParser.parse(Array(text.utf8), maximumDepth: depth)
    }

    private func parse(bytes: [UInt8]) throws(JOSEError) -> JSONValue {
        try JSONParser.parse(bytes)
    }

    @Test func parsesEveryKind() throws {
        let value = try parse(#" {"a":[1,-2.5,3e2,true,false,null,"x"],"b":{"c":"d"},"e":0} "#)
        let object = try #require(value.objectValue)
        #expect(object.names == ["a", "b", "e"])
        #expect(object["a"] == .array([.number(1), .number(-2.5), .number(300), .bool(true), .bool(false), .null, .string("x")]))
        #expect(object["b"]?.objectValue?["c"] == .string("d"))
        #expect(object["e"] == .number(0))
    }

    @Test func decodesEscapes() throws {
        #expect(try parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(try parse(#""\u00e9\u20AC""#) == .string("é€"))
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try parse(#""a\u0000b""#) == .string("a\u{0}b"))
        #expect(try parse("\"héllo 😀\"") == .string("héllo 😀"))
    }

    @Test func duplicateNamesAreRejectedAfterUnescaping() {
        #expect(throws: JOSEError.duplicateMember) { try parse(#"{"a":1,"a":2}"#) }
        #expect(throws: JOSEError.duplicateMember) { try parse(#"{"alg":1,"\u0061lg":2}"#) }
        #expect(throws: JOSEError.duplicateMember) { try parse(#"{"x":{"a":1,"a":1}}"#) }
    }

    @Test(arguments: [
        "", " ", "{", "}", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "[1,]", "[,1]", "{a:1}", "{'a':1}", "01", "-", "1.",
        ".5", "1e", "1e+", "+1", "0x10", "NaN", "Infinity", "1e400", "-1e400", "tru", "nul", "falsey", "\"abc",
        "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"tab\there\"",
        "{} {}", "[] x", "\"a\"\"b\"", "/* c */ {}", "{\"a\":1}//",
    ])
    func rejectsInvalidJSON(text: String) {
        #expect(throws: JOSEError.invalidJSON) { try parse(text) }
    }

    @Test(
        arguments: [
            [0x22, 0xC3, 0x22],  // truncated 2-byte sequence
            [0x22, 0xC0, 0xAF, 0x22],  // overlong "/"
            [0x22, 0xE0, 0x80, 0xAF, 0x22],  // overlong 3-byte
            [0x22, 0xED, 0xA0, 0x80, 0x22],  // UTF-8 encoded surrogate
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22],  // above U+10FFFF
            [0x22, 0xFF, 0x22],
            [0x22, 0x80, 0x22],  // lone continuation byte
            [0x22, 0xE2, 0x82, 0x22],  // truncated 3-byte sequence
        ] as [[UInt8]])
    func rejectsInvalidUTF8(bytes: [UInt8]) {
        #expect(throws: JOSEError.invalidJSON) { try parse(bytes: bytes) }
    }

    @Test func capsNestingDepth() throws {
        #expect(try parse(String(repeating: "[", count: 32) + String(repeating: "]", count: 32)) != .null)
        #expect(throws: JOSEError.nestingTooDeep) {
            try parse(String(repeating: "[", count: 33) + String(repeating: "]", count: 33))
        }
        #expect(throws: JOSEError.nestingTooDeep) {
            try parse(String(repeating: #"{"a":"#, count: 5) + "1" + String(repeating: "}", count: 5), depth: 4)
        }
        // Deep input must fail fast, not overflow the stack.
        #expect(throws: JOSEError.nestingTooDeep) { try parse(String(repeating: "[", count: 100_000)) }
    }

    @Test func deepInputIsParsedSkippedAndWrittenWithoutRecursion() async throws {
        // An object and an array at every level, mixed, 1 000 deep: the tree parser, the
        // scanning parser and the writer all run on a secondary thread's stack, and the tree is
        // released there too.
        let depth = 1000
        let text = String(repeating: #"{"a":["#, count: depth / 2) + "1" + String(repeating: "]}", count: depth / 2)
        let outcome = await onSecondaryThreadStack { () -> Result<Bool, JOSEError> in
            Result { () throws(JOSEError) in
                let bytes = Array(text.utf8)
                let value = try JSONParser.parse(bytes, maximumDepth: depth)
                let written = JSONWriter.serialize(value)
                try bytes.withUnsafeBufferPointer { (buffer) throws(JOSEError) in
                    try JSONParser.scanObject(buffer, maximumDepth: depth) { (_, parser) throws(JOSEError) in try parser.skipValue() }
                }
                return written == text
            }
        }
        #expect(try outcome.get())
    }

    @Test func aHundredThousandLevelsFailAtAHighCapOnASecondaryThreadsStack() async {
        let outcome = await onSecondaryThreadStack { () -> [JOSEError?] in
            let deep = Array(String(repeating: "[", count: 100_000).utf8)
            let deepObject = Array(String(repeating: #"{"a":"#, count: 100_000).utf8)
            return [deep, deepObject].flatMap { bytes in
                let parsed: JOSEError?
                do throws(JOSEError) {
                    _ = try JSONParser.parse(bytes, maximumDepth: 1000)
                    parsed = nil
                } catch {
                    parsed = error
                }
                let skipped: JOSEError?
                do throws(JOSEError) {
                    try Array(#"{"a":"#.utf8 + bytes).withUnsafeBufferPointer { (buffer) throws(JOSEError) in
                        try JSONParser.scanObject(buffer, maximumDepth: 1000) { (_, parser) throws(JOSEError) in try parser.skipValue() }
                    }
                    skipped = nil
                } catch {
                    skipped = error
                }
                return [parsed, skipped]
            }
        }
        #expect(outcome == Array(repeating: .nestingTooDeep, count: 4))
    }

    @Test func numbers() throws {
        #expect(try parse("1800000000") == .number(1_800_000_000))
        #expect(try parse("-0") == .number(0))
        #expect(try parse("1.5E3") == .number(1500))
        #expect(try parse("12345678901234567890") == .number(12_345_678_901_234_567_168))
        #expect(try parse("1e-400") == .number(0))
    }

    @Test func writerRoundTrips() throws {
        let text = #"{"s":"q\"b\\n\n\u0001é","n":[1,-2,0.5],"t":true,"z":null,"o":{}}"#
        let value = try parse(text)
        let written = JSONWriter.serialize(value)
        #expect(try parse(written) == value)
        #expect(written.contains(#""\u0001""#) || written.contains(#"\u0001"#))
    }
}

/// The scanning parser used for headers and claims must accept and reject exactly what the tree
/// parser does, and see escaped names as the names they spell.
@Suite struct JSONScannerTests {
    private func scanAccepts(_ text: String) -> Result<Void, JOSEError> {
        Array(text.utf8).withUnsafeBufferPointer { buffer in
            do throws(JOSEError) {
                try JSONParser.scanObject(buffer, maximumDepth: 32) { (_, parser) throws(JOSEError) in
                    try parser.skipValue()
                }
                return .success(())
            } catch {
                return .failure(error)
            }
        }
    }

    @Test(arguments: [
        #"{}"#, #"{"a":1}"#, #"{"a":{"b":[1,2,{"c":null}]},"d":"\u00e9\ud83d\ude00"}"#, #" { "a" : true } "#,
        #"{"a":1,"a":2}"#, #"{"x":{"a":1,"a":2}}"#, #"{"a":1,"\u0061":2}"#, #"{"a":[1,]}"#, #"{"a":"\ud800"}"#,
        #"{"a":01}"#, #"{"a":1e400}"#, "{\"a\":\"tab\there\"}", #"{"a":1}x"#, #"[1]"#, #""s""#, #"{"a"}"#, #"{"#,
        String(repeating: #"{"a":"#, count: 40) + "1" + String(repeating: "}", count: 40),
    ])
    func agreesWithTheTreeParser(text: String) {
        let tree: Result<JSONValue, JOSEError>
        do throws(JOSEError) {
            tree = .success(try JSONParser.parse(Array(text.utf8)))
        } catch {
            tree = .failure(error)
        }
        switch (tree, scanAccepts(text)) {
        case (.success(.object), .success): break
        case (.success, .failure(.notAnObject)): break
        case (.failure(let a), .failure(let b)): #expect(a == b)
        default: Issue.record("tree and scanner disagree on \(text)")
        }
    }

    @Test func escapedClaimNamesAreTheClaims() throws {
        let claims = try RawIDTokenClaims(json: Array(#"{"\u0069ss":"i","su\u0062":"s","n\u006fnce":"n"}"#.utf8))
        #expect(claims.issuer == "i")
        #expect(claims.subject == "s")
        #expect(claims.nonce == "n")
        #expect(throws: JOSEError.duplicateMember) {
            try RawIDTokenClaims(json: Array(#"{"iss":"a","\u0069ss":"b"}"#.utf8))
        }
        #expect(throws: JOSEError.duplicateMember) {
            try RawIDTokenClaims(json: Array(#"{"other":1,"x":{"k":1,"k":2}}"#.utf8))
        }
        #expect(throws: JOSEError.invalidJSON) {
            try RawIDTokenClaims(json: [0x7B, 0x22, 0x78, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])  // {"x":"\xFF"}
        }
    }

    @Test func manyMembersStayLinearAndStillCatchDuplicates() throws {
        let members = (0..<5000).map { #""m\#($0)":\#($0)"# }
        let object = "{" + members.joined(separator: ",") + "}"
        #expect(throws: Never.self) { try RawIDTokenClaims(json: Array(object.utf8)) }
        let duplicated = "{" + (members + [#""m4999":0"#]).joined(separator: ",") + "}"
        #expect(throws: JOSEError.duplicateMember) { try RawIDTokenClaims(json: Array(duplicated.utf8)) }
        #expect(throws: JOSEError.duplicateMember) { try JSONParser.parse(Array(duplicated.utf8)) }
    }

    @Test func headerWithEscapedCrit() throws {
        let header = #"{"alg":"RS256","\u0063rit":["x"]}"#
        #expect(throws: JOSEError.criticalHeader) { try JOSEHeader(json: Array(header.utf8)) }
        let escapedAlg = try JOSEHeader(json: Array(#"{"\u0061lg":"RS256","kid":"k\"1"}"#.utf8))
        #expect(escapedAlg.algorithm == "RS256")
        #expect(escapedAlg.keyID == #"k"1"#)
    }
}
