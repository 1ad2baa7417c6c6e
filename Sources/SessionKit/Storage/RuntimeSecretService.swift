import CSessionKitSupport
package import SessionKitCore

/// The desktop keyring (freedesktop Secret Service: GNOME Keyring, KeePassXC, KWallet's bridge)
/// through libsecret, loaded at run time: the library links against nothing for it, and a machine
/// without `libsecret-1.so.0` or without a Secret Service on its session bus simply has no keyring
/// (``unavailabilityReason()`` says why).
///
/// Every call blocks on D-Bus; run it off the Swift concurrency pool (``RuntimeSecretServiceStore``
/// runs them on a serial queue of its own). Failure messages are libsecret's or GLib's, which never
/// hold an item's value.
package enum RuntimeSecretService {
    /// Where one item lives: the default collection, found by the attributes `service` and `account`
    /// (schema `SessionKit.Credential`).
    package struct Item: Sendable, Hashable {
        /// The `service` attribute.
        package var service: String
        /// The `account` attribute.
        package var account: String
        /// The label the keyring's own tools show.
        package var label: String

        /// Names an item.
        package init(service: String, account: String, label: String) {
            self.service = service
            self.account = account
            self.label = label
        }
    }

    private static let messageCapacity = 512

    /// `nil` when libsecret loads and a Secret Service with a default collection answers; else why not.
    package static func unavailabilityReason() -> String? {
        var failure: String?
        withMessage { message, capacity in
            if sessionkit_secret_runtime_probe(message, capacity) != SESSIONKIT_SECRET_OK { failure = String(cString: message) }
        }
        return failure.map { $0.isEmpty ? "the Secret Service did not answer" : $0 }
    }

    /// The item's bytes, or nil when there is no such item.
    package static func read(_ item: Item) throws(CredentialStoreError) -> [UInt8]? {
        var outcome: Result<[UInt8]?, CredentialStoreError> = .success(nil)
        withMessage { message, capacity in
            var value: UnsafeMutableRawPointer?
            let status = sessionkit_secret_runtime_lookup(item.service, item.account, &value, message, capacity)
            guard status == SESSIONKIT_SECRET_OK else {
                outcome = .failure(failure(status, "lookup", message))
                return
            }
            guard let value else { return }
            defer { sessionkit_secret_runtime_release(value) }
            var length = 0
            guard let bytes = sessionkit_secret_runtime_bytes(value, &length) else {
                outcome = .success([])
                return
            }
            outcome = .success(Array(UnsafeBufferPointer(start: bytes, count: length)))
        }
        return try outcome.get()
    }

    /// Creates or replaces the item with `bytes`, in one Secret Service call (`CreateItem` with
    /// `replace`), so a reader sees the old value or the new one.
    package static func write(_ bytes: [UInt8], to item: Item) throws(CredentialStoreError) {
        var outcome: Result<Void, CredentialStoreError> = .success(())
        withMessage { message, capacity in
            let status = bytes.withUnsafeBufferPointer { buffer in
                sessionkit_secret_runtime_store(item.service, item.account, item.label, buffer.baseAddress, buffer.count, message, capacity)
            }
            if status != SESSIONKIT_SECRET_OK { outcome = .failure(failure(status, "store", message)) }
        }
        try outcome.get()
    }

    /// Deletes the item; a missing item is no error.
    package static func remove(_ item: Item) throws(CredentialStoreError) {
        var outcome: Result<Void, CredentialStoreError> = .success(())
        withMessage { message, capacity in
            let status = sessionkit_secret_runtime_clear(item.service, item.account, message, capacity)
            if status != SESSIONKIT_SECRET_OK { outcome = .failure(failure(status, "delete", message)) }
        }
        try outcome.get()
    }

    private static func withMessage(_ body: (UnsafeMutablePointer<CChar>, Int) -> Void) {
        let message = UnsafeMutablePointer<CChar>.allocate(capacity: messageCapacity)
        defer { message.deallocate() }
        message.initialize(to: 0)
        body(message, messageCapacity)
    }

    /// The store error for a failed call; names the operation and the system's message.
    private static func failure(
        _ status: sessionkit_secret_status, _ operation: String, _ message: UnsafeMutablePointer<CChar>
    ) -> CredentialStoreError {
        let text = "Secret Service \(operation): \(String(cString: message))"
        return status == SESSIONKIT_SECRET_DENIED ? .permissionDenied(text) : .ioFailure(text)
    }
}
