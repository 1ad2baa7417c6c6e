import Testing

@testable import SessionKitJOSE

/// The P1363 ⇄ DER conversion ES256 needs on both backends.
@Suite struct ECDSASignatureTests {
    static func der(_ p1363: [UInt8]) -> [UInt8]? {
        p1363.withUnsafeBytes { ECDSASignature.der(fromP1363: $0) }
    }

    @Test func minimalIntegersWithASignOctetWhenTheHighBitIsSet() throws {
        let r = [UInt8](repeating: 0x80, count: 32)
        let s = [UInt8](repeating: 0, count: 31) + [0x01]
        let der = try #require(Self.der(r + s))
        #expect(der == [0x30, 38, 0x02, 33, 0x00] + r + [0x02, 1, 0x01])
        #expect(ECDSASignature.p1363(fromDER: der) == r + s)
    }

    @Test func aRoundTripKeepsLeadingZeroBytes() throws {
        let r = [0, 0, 0x12] + [UInt8](repeating: 0x34, count: 29)
        let s = [0x7F] + [UInt8](repeating: 0xAB, count: 31)
        let der = try #require(Self.der(r + s))
        #expect(der[3] == 30)
        #expect(ECDSASignature.p1363(fromDER: der) == r + s)
    }

    @Test func outOfRangeAndWrongLengthsHaveNoDERForm() {
        let one = [UInt8](repeating: 0, count: 31) + [1]
        let zero = [UInt8](repeating: 0, count: 32)
        var belowOrder = ECDSASignature.p256Order
        belowOrder[31] -= 1
        #expect(Self.der(one + one) != nil)
        #expect(Self.der(belowOrder + belowOrder) != nil)
        #expect(Self.der(zero + one) == nil)
        #expect(Self.der(one + zero) == nil)
        #expect(Self.der(ECDSASignature.p256Order + one) == nil)
        #expect(Self.der(one + [UInt8](repeating: 0xFF, count: 32)) == nil)
        #expect(Self.der(one + one + [0]) == nil)
        #expect(Self.der(Array((one + one).dropLast())) == nil)
    }

    @Test func nonMinimalOrOversizedDERIsRefused() {
        // A redundant leading zero, a negative integer, a 33-byte magnitude, trailing bytes.
        #expect(ECDSASignature.p1363(fromDER: [0x30, 7, 0x02, 2, 0x00, 0x01, 0x02, 1, 0x01]) == nil)
        #expect(ECDSASignature.p1363(fromDER: [0x30, 6, 0x02, 1, 0x81, 0x02, 1, 0x01]) == nil)
        #expect(ECDSASignature.p1363(fromDER: [0x30, 6, 0x02, 1, 0x01, 0x02, 1, 0x01]) != nil)
        #expect(ECDSASignature.p1363(fromDER: [0x30, 6, 0x02, 1, 0x01, 0x02, 1, 0x01, 0x00]) == nil)
        let big = [0x30, 39, 0x02, 34, 0x00, 0x80] + [UInt8](repeating: 1, count: 32) + [0x02, 1, 0x01]
        #expect(ECDSASignature.p1363(fromDER: big) == nil)
    }
}
