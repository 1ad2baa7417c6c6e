/// The digest that seals a ``StoreEnvelope``.
///
/// Interim: four FNV-1a-64 lanes with distinct offsets until SHA-256 from SessionKitJOSE is
/// available here; the frame layout (32 digest bytes) does not change when it is swapped in.
enum StoreDigest {
    static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        let prime: UInt64 = 0x0000_0100_0000_01B3
        var lanes: [UInt64] = [0xCBF2_9CE4_8422_2325, 0x84222325CBF29CE4, 0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F]
        for byte in bytes {
            for index in lanes.indices {
                lanes[index] = (lanes[index] ^ UInt64(byte)) &* prime &+ UInt64(index)
            }
        }
        return lanes.flatMap { lane in (0..<8).reversed().map { UInt8(truncatingIfNeeded: lane >> ($0 * 8)) } }
    }
}
