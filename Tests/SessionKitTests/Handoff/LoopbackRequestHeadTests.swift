import Testing

@testable import SessionKit

/// The strict HTTP/1.x head parser behind the loopback listener.
struct LoopbackRequestHeadTests {
    private func parse(_ text: String) throws(LoopbackRequestHead.Problem) -> LoopbackRequestHead {
        try LoopbackRequestHead.parse(ArraySlice(Array(text.utf8)))
    }

    @Test func aBrowsersRequestIsParsed() throws {
        let head = try parse("GET /callback?code=a&state=b HTTP/1.1\r\nHost: 127.0.0.1:5000\r\nAccept: */*\r\nUser-Agent: x\r\n\r\n")
        #expect(head == LoopbackRequestHead(method: "GET", target: "/callback?code=a&state=b", host: "127.0.0.1:5000"))
        #expect(head.path == "/callback")
        #expect(head.query == "code=a&state=b")
    }

    @Test func theHostHeaderIsFoundInAnyCaseAndTrimmed() throws {
        #expect(try parse("GET / HTTP/1.0\r\nhOsT: \t127.0.0.1:1 \r\n\r\n").host == "127.0.0.1:1")
        #expect(try parse("GET / HTTP/1.0\r\n\r\n").host == nil)
        #expect(try parse("GET /x HTTP/1.1\r\nHost: h\r\n\r\n").query == nil)
    }

    @Test(arguments: [
        "", "\r\n\r\n", "GET /\r\n\r\n", "GET  / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1 \r\n\r\n", "GET / HTTP/1.1\r\nHost: a\r\n",
        "GET * HTTP/1.1\r\n\r\n", "GET http://a/ HTTP/1.1\r\n\r\n", "GET /a b HTTP/1.1\r\n\r\n", "G(T / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nNoColon\r\n\r\n", "GET / HTTP/1.1\r\n: empty\r\n\r\n", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n", "GET / HTTP/1.1\r\nA: b\rc\r\n\r\n", "GET / HTTP/1.1\r\nA: \u{0}\r\n\r\n",
        "\r\nGET / HTTP/1.1\r\n\r\n", "GET / http/1.1\r\n\r\n",
    ])
    func malformedHeadsAreRefused(_ text: String) {
        #expect(throws: LoopbackRequestHead.Problem.malformed) { try parse(text) }
    }

    @Test func aHeadOverTheLimitIsRefusedEvenWhenWellFormed() {
        let padding = String(repeating: "a", count: LoopbackRequestHead.maximumSize)
        #expect(throws: LoopbackRequestHead.Problem.malformed) { try parse("GET / HTTP/1.1\r\nX: \(padding)\r\n\r\n") }
    }

    @Test func theEndOfAHeadIsFoundOnlyAtABlankLine() {
        #expect(LoopbackRequestHead.end(in: Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8)) == nil)
        #expect(LoopbackRequestHead.end(in: Array("GET / HTTP/1.1\r\n\r\nextra".utf8)) == 18)
    }

    @Test func randomBytesNeverCrashAndNeverYieldAnOddTarget() {
        var random = SeededRandomBytes(seed: 0x5EED)
        var parsed = 0
        for round in 0..<20_000 {
            let alphabet = Array("GET /?=&%HTP1.0\r\n: ab".utf8)
            let bytes = (0..<(round % 97)).map { _ in
                random.next() % 4 == 0 ? UInt8(truncatingIfNeeded: random.next()) : alphabet[Int(random.next() % UInt64(alphabet.count))]
            }
            if let head = try? LoopbackRequestHead.parse(ArraySlice(bytes + Array("\r\n\r\n".utf8))) {
                parsed += 1
                #expect(head.target.hasPrefix("/") && !head.target.contains(" "))
            }
        }
        #expect(parsed < 20_000)
    }
}

/// SplitMix64: reproducible bytes for the parser's random inputs.
struct SeededRandomBytes {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
