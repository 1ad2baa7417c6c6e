package import SessionKitCore

/// A ``ClientRegistrationStore`` kept as one item of a keyring-like store (the Keychain, the
/// Secret Service): the registration's framed record (the `registration` file's format: schema
/// version, kind, SHA-256) read, replaced and deleted whole.
///
/// Every decision of those stores about a registration is here, tested on every platform over an
/// in-memory item; the platform glue only moves bytes. A damaged item, or one from a newer build,
/// is a typed error and is never replaced by a read; a missing item is no registration.
package struct StoredItemRegistrationStore: ClientRegistrationStore {
    /// Reads the item's bytes; `nil` when there is no item.
    package typealias Read = @Sendable () async throws(CredentialStoreError) -> [UInt8]?
    /// Replaces the item's bytes in one call.
    package typealias Write = @Sendable ([UInt8]) async throws(CredentialStoreError) -> Void
    /// Deletes the item; a missing item is no error.
    package typealias Remove = @Sendable () async throws(CredentialStoreError) -> Void

    private let read: Read
    private let write: Write
    private let remove: Remove

    /// A store over the item `read`, `write` and `remove` reach.
    package init(read: @escaping Read, write: @escaping Write, remove: @escaping Remove) {
        self.read = read
        self.write = write
        self.remove = remove
    }

    /// Reads the registration, or nil when the item does not exist.
    package func loadRegistration() async throws(CredentialStoreError) -> ClientRegistration? {
        guard let bytes = try await read() else { return nil }
        return try StoredPayloadCodec.openRegistration(bytes)
    }

    /// Replaces the item with the sealed registration.
    package func saveRegistration(_ registration: ClientRegistration) async throws(CredentialStoreError) {
        try await write(try StoredPayloadCodec.seal(registration))
    }

    /// Deletes the item.
    package func removeRegistration() async throws(CredentialStoreError) {
        try await remove()
    }
}
