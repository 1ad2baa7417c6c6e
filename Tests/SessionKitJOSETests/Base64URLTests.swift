import SessionKitJOSE
import Testing

@Suite struct Base64URLTests {
    /// RFC 4648 §10 test vectors, unpadded, in the URL-safe alphabet.
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func rfc4648Vectors(plain: String, encoded: String) throws {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(try Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func urlSafeAlphabet() throws {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(try Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test func roundTripsEveryLengthAndByte() throws {
        var generator = SystemRandomNumberGenerator()
        for length in 0...200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = Base64URL.encode(bytes)
            #expect(text.utf8.count == (length * 4 + 2) / 3)
            #expect(try Base64URL.decode(text) == bytes)
            #expect(try Base64URL.decode(Substring(text)) == bytes)
        }
        let everyByte = (0...255).map(UInt8.init)
        #expect(try Base64URL.decode(Base64URL.encode(everyByte)) == everyByte)
    }

    @Test(arguments: [
        "Zg==", "Zg=", "Zm9v=", "Z", "Zm9vY", "Zm9v Yg", " Zm9v", "Zm9v\n", "Zm+v", "Zm/v", "Zm9v.", "Zh", "Zm9",
        "Zm9vYh", "Zm9vYmF", "Zm9vYmG", "é", "\u{0}", "AAAAA",
    ])
    func rejectsNonCanonicalText(text: String) {
        #expect(throws: JOSEError.invalidBase64URL) { try Base64URL.decode(text) }
    }

    @Test func everyTrailingCharacterHasOneCanonicalForm() {
        // In a 2-character tail the second character's low 4 bits are unused: of its 64 values,
        // only the 4 with those bits clear are canonical. In a 3-character tail 2 bits are unused.
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let twoCharacterTails = alphabet.filter { (try? Base64URL.decode("A" + String($0))) != nil }
        #expect(twoCharacterTails.count == 4)
        let threeCharacterTails = alphabet.filter { (try? Base64URL.decode("AA" + String($0))) != nil }
        #expect(threeCharacterTails.count == 16)
    }

    /// Decoding to nothing must not touch memory other threads share: the standard library's
    /// empty-array storage is one global, and filling an array made with capacity 0 writes its
    /// count there. The thread-sanitizer pass of the suite reports that as a race.
    @Test func emptyInputDecodesOnManyThreadsAtOnceWithoutSharedWrites() async throws {
        let decoded = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var total = 0
                    for _ in 0..<2_000 {
                        total += try Base64URL.decode("").count + Base64URL.decode("AA").count + Base64URL.encode([]).utf8.count
                    }
                    return total
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(decoded == 8 * 2_000)
    }
}
