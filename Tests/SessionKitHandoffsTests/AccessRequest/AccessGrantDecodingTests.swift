import Testing

@testable import SessionKitHandoffs

@Suite struct AccessGrantDecodingTests {
    @Test func decodesTodaysObjectReferences() throws {
        let grant = try AccessGrant.decode(
            Fixtures.grant(
                resolved: #"[{"entryId":"github","reference":{"reference":"r-1"}},{"reference":{"reference":"r-2"}}]"#))
        #expect(grant.path == "vault/requests/7")
        #expect(grant.state == .resolved)
        #expect(grant.resolved.map(\.entryID) == ["github", nil])
        #expect(grant.resolved.map(\.reference.secret.value) == ["r-1", "r-2"])
    }

    @Test func decodesLaterPlainStringReferences() throws {
        let grant = try AccessGrant.decode(Fixtures.grant(resolved: #"[{"entryId":"aws","reference":"r-9"}]"#))
        #expect(grant.resolved == [AccessGrant.Entry(entryID: "aws", reference: CredentialReference("r-9"))])
    }

    @Test func bothShapesDecodeToTheSameGrant() throws {
        let object = try AccessGrant.decode(Fixtures.grant(resolved: #"[{"entryId":"a","reference":{"reference":"x"}}]"#))
        let plain = try AccessGrant.decode(Fixtures.grant(resolved: #"[{"entryId":"a","reference":"x"}]"#))
        #expect(object == plain)
    }

    @Test(arguments: AccessGrant.State.allCases)
    func decodesEveryState(_ state: AccessGrant.State) throws {
        #expect(try AccessGrant.decode(Fixtures.grant(state: state.rawValue, resolved: "[]")).state == state)
    }

    @Test func ignoresUnknownMembersAndTreatsNullOptionalsAsAbsent() throws {
        let json =
            #"{"path":"p","state":"pending","future":{"nested":[1,2]},"#
            + #""resolved":[{"entryId":null,"reference":{"reference":"r","kind":"login"},"extra":true}]}"#
        let grant = try AccessGrant.decode(Array(json.utf8))
        #expect(grant.resolved == [AccessGrant.Entry(entryID: nil, reference: CredentialReference("r"))])
        #expect(try AccessGrant.decode(Array(#"{"path":"p","state":"denied","resolved":[]}"#.utf8)).resolved.isEmpty)
    }

    @Test func resolvedIsRequiredAsInOnePasswordsType() {
        for state in AccessGrant.State.allCases {
            #expect(throws: AccessGrantDecodingError.missingField("resolved")) {
                try AccessGrant.decode(Array(#"{"path":"p","state":"\#(state.rawValue)"}"#.utf8))
            }
        }
    }

    @Test(arguments: [
        (#"{"state":"resolved","resolved":[]}"#, AccessGrantDecodingError.missingField("path")),
        (#"{"path":"p","resolved":[]}"#, .missingField("state")),
        (#"{"path":"p","state":"granted","resolved":[]}"#, .unknownState),
        (#"{"path":"p","state":"RESOLVED","resolved":[]}"#, .unknownState),
        (#"{"path":"p","state":"resolved","resolved":{"entryId":"a"}}"#, .wrongType("resolved")),
        (#"{"path":"p","state":"resolved","resolved":null}"#, .wrongType("resolved")),
        (#"{"path":1,"state":"resolved","resolved":[]}"#, .wrongType("path")),
        (#"{"path":"p","state":true}"#, .wrongType("state")),
        (#"{"path":"p","state":"resolved","resolved":["r"]}"#, .wrongType("resolved[0]")),
        (#"{"path":"p","state":"resolved","resolved":[{"entryId":"a"}]}"#, .missingField("resolved[0].reference")),
        (#"{"path":"p","state":"resolved","resolved":[{"reference":7}]}"#, .wrongType("resolved[0].reference")),
        (#"{"path":"p","state":"resolved","resolved":[{"reference":{}}]}"#, .missingField("resolved[0].reference.reference")),
        (#"{"path":"p","state":"resolved","resolved":[{"reference":{"reference":[]}}]}"#, .wrongType("resolved[0].reference.reference")),
        (#"{"path":"p","state":"resolved","resolved":[{"reference":""}]}"#, .invalidValue("resolved[0].reference")),
        (#"{"path":"p","state":"resolved","resolved":[{"entryId":5,"reference":"r"}]}"#, .wrongType("resolved[0].entryId")),
        (#"{"path":"p","state":"resolved","resolved":[{"entryId":"","reference":"r"}]}"#, .invalidValue("resolved[0].entryId")),
        (
            #"{"path":"p","state":"resolved","resolved":[{"entryId":"a","reference":"r"},{"entryId":"a","reference":"s"}]}"#,
            .duplicateEntryID
        ),
        (#"[{"path":"p"}]"#, .notAnObject),
        (#"{"path":"p","path":"q","state":"resolved"}"#, .invalidJSON),
        (#"{"path":"p","state":"resolved""#, .invalidJSON),
        ("", .invalidJSON),
    ])
    func rejectsWithATypedError(_ json: String, _ expected: AccessGrantDecodingError) {
        #expect(throws: expected) { try AccessGrant.decode(Array(json.utf8)) }
    }

    @Test func rejectsInvalidUTF8AndOversizedInput() {
        #expect(throws: AccessGrantDecodingError.invalidJSON) {
            try AccessGrant.decode([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D])
        }
        #expect(throws: AccessGrantDecodingError.tooLarge) {
            try AccessGrant.decode([UInt8](repeating: 0x20, count: AccessGrant.maximumSize + 1))
        }
    }

    @Test func errorsNameThePathNeverTheValue() {
        let json =
            #"{"path":"p","state":"resolved","resolved":[{"entryId":"a","reference":"SECRET-r"},{"entryId":"a","reference":"SECRET-s"}]}"#
        do {
            _ = try AccessGrant.decode(Array(json.utf8))
            Issue.record("accepted a duplicate entryId")
        } catch {
            #expect(!"\(error)".contains("SECRET"))
            #expect(!String(reflecting: error).contains("SECRET"))
        }
    }
}
