/// Failures of the crypto backend.
///
/// None of them carries key material or message bytes, so they are safe to log.
@nonexhaustive
public enum CryptoError: Error, Sendable, Equatable {
    /// The system's random number generator did not deliver; nothing random was returned.
    case randomFailed
    /// Key material was rejected: wrong size, bad exponent, or the backend refused it.
    case invalidKey
    /// The backend could not produce a signature.
    case signingFailed
    /// Key generation failed in the backend.
    case keyGenerationFailed
    /// A size or count argument was outside what the operation allows.
    case invalidParameter
}
