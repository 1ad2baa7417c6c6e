import SessionKitJOSE
import Synchronization

/// RSA signing keys for simulated providers, generated once per process and shared.
///
/// Generating a 2048-bit key takes a noticeable fraction of a second; a test suite that starts
/// a provider per test passes `try SimulatedProviderKeys.shared(count: 3)` as its signing keys
/// and pays for the keys once.
public enum SimulatedProviderKeys {
    private static let cache = Mutex<[RSAPrivateKey]>([])

    /// The first `count` keys of the process-wide set, generating the missing ones.
    public static func shared(count: Int) throws(CryptoError) -> [RSAPrivateKey] {
        try cache.withLock { (keys) throws(CryptoError) -> [RSAPrivateKey] in
            while keys.count < count {
                keys.append(try RSAPrivateKey.generate(bitCount: 2048))
            }
            return Array(keys.prefix(max(count, 0)))
        }
    }
}
