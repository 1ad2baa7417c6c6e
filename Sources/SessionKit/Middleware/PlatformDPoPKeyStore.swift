import SessionKitCore
public import SessionKitJOSE

/// What a platform offers for holding DPoP keys: the Secure Enclave, a Keychain key item. The
/// Apple implementation (`KeychainDPoPKeyBackend`, compiled only where Security is) is thin glue;
/// every decision about which to use and what to do when one fails is ``PlatformDPoPKeyStore``'s,
/// tested on every platform.
public protocol DPoPPlatformKeyBackend: Sendable {
    /// Whether this device has a Secure Enclave that can hold P-256 signing keys.
    var hasSecureEnclave: Bool { get }
    /// Makes a P-256 key that stays in `placement`, found again by `tag`.
    func makeKey(in placement: StoredDPoPKey.Placement, tag: String) throws(DPoPKeyStoreError) -> any DPoPSigningKey
    /// The key made with `tag` in `placement`, or `nil` when there is none.
    func findKey(in placement: StoredDPoPKey.Placement, tag: String) throws(DPoPKeyStoreError) -> (any DPoPSigningKey)?
    /// Deletes the key made with `tag` in `placement`, if there is one.
    func deleteKey(in placement: StoredDPoPKey.Placement, tag: String)
}

/// Keeps DPoP keys where the platform holds them best: the Secure Enclave when the device has one,
/// else a Keychain key item, else (when allowed) the credential record.
///
/// The private key of an Enclave or Keychain key never leaves the platform; the record keeps only
/// its tag and public half. A failure to make an Enclave key (a simulator, a device without one,
/// an Enclave that refuses) falls back to the Keychain; a Keychain failure falls back to a record
/// key only when ``allowsRecordFallback`` is set, and otherwise is the sign-in's error.
public struct PlatformDPoPKeyStore: DPoPKeyStore {
    /// Where keys are made.
    public let backend: any DPoPPlatformKeyBackend
    /// Whether the Secure Enclave is tried first (default on).
    public let prefersSecureEnclave: Bool
    /// Whether a key may be kept in the record when the platform holds none (default on).
    public let allowsRecordFallback: Bool

    /// A store over `backend`.
    public init(backend: any DPoPPlatformKeyBackend, prefersSecureEnclave: Bool = true, allowsRecordFallback: Bool = true) {
        self.backend = backend
        self.prefersSecureEnclave = prefersSecureEnclave
        self.allowsRecordFallback = allowsRecordFallback
    }

    /// The placements a new key is tried in, in order.
    public var placements: [StoredDPoPKey.Placement] {
        var order: [StoredDPoPKey.Placement] = []
        if prefersSecureEnclave, backend.hasSecureEnclave { order.append(.secureEnclave) }
        order.append(.keychain)
        if allowsRecordFallback { order.append(.record) }
        return order
    }

    public func makeKey() throws(DPoPKeyStoreError) -> (key: any DPoPSigningKey, stored: StoredDPoPKey) {
        var lastError = DPoPKeyStoreError("no placement for a DPoP key")
        for placement in placements {
            if placement == .record { return try RecordDPoPKeyStore().makeKey() }
            let tag: String
            do {
                tag = "sessionkit.dpop." + (try RandomToken.generate(byteCount: 16))
            } catch {
                throw DPoPKeyStoreError("the random source failed")
            }
            do {
                let key = try backend.makeKey(in: placement, tag: tag)
                let stored = StoredDPoPKey(
                    placement: placement, thumbprint: key.publicKey.thumbprint, x: Base64URL.encode(key.publicKey.x),
                    y: Base64URL.encode(key.publicKey.y), reference: Secret(tag))
                return (key, stored)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    public func key(for stored: StoredDPoPKey) throws(DPoPKeyStoreError) -> (any DPoPSigningKey)? {
        switch stored.placement {
        case .record:
            return try RecordDPoPKeyStore().key(for: stored)
        case .secureEnclave, .keychain:
            guard let tag = stored.reference?.value else { return nil }
            return try backend.findKey(in: stored.placement, tag: tag)
        default:
            // Written by a later version: not a key this build can find.
            return nil
        }
    }

    public func deleteKey(_ stored: StoredDPoPKey) async {
        guard stored.placement == .secureEnclave || stored.placement == .keychain, let tag = stored.reference?.value else { return }
        backend.deleteKey(in: stored.placement, tag: tag)
    }
}
