import Testing

@testable import SessionKitHandoffs

@Suite struct AccessGrantMatchTests {
    private func grant(_ entries: [(String?, String)]) -> AccessGrant {
        AccessGrant(
            path: "p", state: .resolved, resolved: entries.map { AccessGrant.Entry(entryID: $0.0, reference: CredentialReference($0.1)) })
    }

    @Test func matchesByEntryIDNotByPosition() {
        let requested = ["github", "aws", "slack"]
        let reordered = grant([("slack", "r-slack"), (nil, "r-extra"), ("github", "r-github"), ("aws", "r-aws")])
        let match = reordered.match(requestedEntryIDs: requested)
        #expect(match["github"]?.secret.value == "r-github")
        #expect(match["aws"]?.secret.value == "r-aws")
        #expect(match["slack"]?.secret.value == "r-slack")
        #expect(match.extraLogins.map(\.secret.value) == ["r-extra"])
        #expect(match.missingEntryIDs.isEmpty)
        #expect(match.unrequested.isEmpty)
    }

    @Test func everyOrderOfTheSameEntriesMatchesTheSame() {
        let entries: [(String?, String)] = [("a", "ra"), ("b", "rb"), (nil, "rx"), ("c", "rc")]
        let expected = grant(entries).match(requestedEntryIDs: ["c", "a", "b"])
        for rotation in 1..<entries.count {
            let rotated = Array(entries[rotation...] + entries[..<rotation])
            #expect(grant(rotated).match(requestedEntryIDs: ["c", "a", "b"]) == expected)
            #expect(grant(rotated.reversed()).match(requestedEntryIDs: ["c", "a", "b"]) == expected)
        }
    }

    @Test func reportsMissingExtraAndUnrequestedEntries() {
        let match = grant([("a", "ra"), ("z", "rz"), (nil, "r1"), (nil, "r2")]).match(requestedEntryIDs: ["a", "b", "c", "b"])
        #expect(Set(match.references.keys) == ["a"])
        #expect(match.missingEntryIDs == ["b", "c"])
        #expect(match.extraLogins.map(\.secret.value) == ["r1", "r2"])
        #expect(match.unrequested.mapValues(\.secret.value) == ["z": "rz"])
        #expect(match["z"] == nil)
    }

    @Test func matchingADecodedGrantUsesItsEntryIDs() throws {
        let decoded = try AccessGrant.decode(
            Fixtures.grant(
                resolved: #"[{"reference":"extra"},{"entryId":"two","reference":"r2"},{"entryId":"one","reference":{"reference":"r1"}}]"#))
        let match = decoded.match(requestedEntryIDs: ["one", "two"])
        #expect(match["one"]?.secret.value == "r1")
        #expect(match["two"]?.secret.value == "r2")
        #expect(match.extraLogins.map(\.secret.value) == ["extra"])
    }
}
