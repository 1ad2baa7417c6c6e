public import SessionKitJOSE

/// RSA signing keys for simulated providers, generated once per process and shared.
///
/// Generating a 2048-bit key takes a noticeable fraction of a second; a test suite that starts
/// a provider per test passes `try SimulatedProviderKeys.shared(count: 3)` as its signing keys
/// and pays for the keys once.
public enum SimulatedProviderKeys {
    /// How many keys the process-wide set holds; a larger request gets the rest freshly generated.
    public static let poolSize = 4

    // A lazily initialized static is set up exactly once under the runtime's once-guard, which the
    // thread sanitizer understands; a `Mutex` (a bare futex on Linux) would look like a data race
    // to it when parallel tests ask at the same moment.
    private static let pool: Result<[RSAPrivateKey], CryptoError> = {
        do throws(CryptoError) {
            return .success(try (0..<poolSize).map { (_) throws(CryptoError) in try RSAPrivateKey.generate(bitCount: 2048) })
        } catch {
            return .failure(error)
        }
    }()

    /// The first `count` keys of the process-wide set; keys beyond ``poolSize`` are generated anew.
    public static func shared(count: Int) throws(CryptoError) -> [RSAPrivateKey] {
        var keys = Array(try pool.get().prefix(max(count, 0)))
        while keys.count < count {
            keys.append(try RSAPrivateKey.generate(bitCount: 2048))
        }
        return keys
    }
}
