import SessionKitCore
public import SessionKitJOSE

/// Where a session's DPoP keys are made, found again and deleted: the seam between the session's
/// decisions and the place a private key lives.
///
/// The session makes one key per sign-in (``makeKey()``), keeps the ``StoredDPoPKey`` it is given
/// in the credential record, finds the key again at restore (``key(for:)``) and deletes it with the
/// session (``deleteKey(_:)``). ``RecordDPoPKeyStore`` keeps the private key inside the record
/// (OpenSSL on Linux); ``PlatformDPoPKeyStore`` asks a platform backend (the Secure Enclave, else a
/// Keychain key on Apple platforms) and falls back by a rule tested on every platform.
public protocol DPoPKeyStore: Sendable {
    /// A fresh key and its stored form.
    func makeKey() throws(DPoPKeyStoreError) -> (key: any DPoPSigningKey, stored: StoredDPoPKey)
    /// The key `stored` names, or `nil` when it is gone (deleted, a reset Keychain, a record moved
    /// to another device). A key of another placement than this store's is `nil` too.
    func key(for stored: StoredDPoPKey) throws(DPoPKeyStoreError) -> (any DPoPSigningKey)?
    /// Deletes the key `stored` names; deleting a key that is gone succeeds.
    func deleteKey(_ stored: StoredDPoPKey) async
}

/// A key store's failure; its message names what failed, never key material.
public struct DPoPKeyStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed.
    public let message: String

    /// An error saying what failed.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { "DPoPKeyStoreError(\(message))" }
}

/// Keeps each session's DPoP private key inside the credential record, beside the refresh token
/// it guards: the same sealed, protected storage (file, Keychain item, Secret Service item), written
/// and deleted in the same atomic save. The default on Linux, and wherever no platform key store
/// is available.
public struct RecordDPoPKeyStore: DPoPKeyStore {
    /// A store of record keys.
    public init() {}

    public func makeKey() throws(DPoPKeyStoreError) -> (key: any DPoPSigningKey, stored: StoredDPoPKey) {
        let key: P256PrivateKey
        let scalar: [UInt8]
        do {
            key = try P256PrivateKey.generate()
            scalar = try key.exportScalar()
        } catch {
            throw DPoPKeyStoreError("a P-256 key could not be generated")
        }
        let stored = StoredDPoPKey(
            placement: .record, thumbprint: key.publicKey.thumbprint, x: Base64URL.encode(key.publicKey.x),
            y: Base64URL.encode(key.publicKey.y), privateScalar: Secret(Base64URL.encode(scalar)))
        return (key, stored)
    }

    public func key(for stored: StoredDPoPKey) throws(DPoPKeyStoreError) -> (any DPoPSigningKey)? {
        guard stored.placement == .record, let scalar = stored.privateScalar else { return nil }
        guard let d = try? Base64URL.decode(scalar.value), let x = try? Base64URL.decode(stored.x),
            let y = try? Base64URL.decode(stored.y)
        else { throw DPoPKeyStoreError("the stored DPoP key is not base64url") }
        do {
            return try P256PrivateKey(scalar: d, x: x, y: y)
        } catch {
            throw DPoPKeyStoreError("the stored DPoP key is not a P-256 key pair")
        }
    }

    /// Nothing to do: the key goes with the record that holds it.
    public func deleteKey(_ stored: StoredDPoPKey) async {}
}
