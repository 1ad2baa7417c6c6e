#if canImport(CSessionKitSecret)
    import CSessionKitSecret
    import SessionKit

    /// The blocking libsecret calls behind ``SecretServiceCredentialStore``; run them off the
    /// concurrency pool.
    enum SecretServiceItems {
        /// The item's bytes, or nil when there is no such item.
        static func read(_ item: SecretServiceCredentialStore.Item) throws(CredentialStoreError) -> [UInt8]? {
            var error: UnsafeMutablePointer<GError>?
            guard let value = sessionkit_secret_lookup(item.service, item.account, &error) else {
                if let error { throw failure(error, "lookup") }
                return nil
            }
            defer { secret_value_unref(UnsafeMutableRawPointer(value)) }
            var length = 0
            guard let bytes = sessionkit_secret_value_bytes(value, &length) else { return [] }
            return Array(UnsafeBufferPointer(start: bytes, count: length))
        }

        /// Creates or replaces the item with `bytes`, in one Secret Service call.
        static func write(_ bytes: [UInt8], to item: SecretServiceCredentialStore.Item) throws(CredentialStoreError) {
            var error: UnsafeMutablePointer<GError>?
            let stored = bytes.withUnsafeBufferPointer { buffer in
                sessionkit_secret_store(item.service, item.account, item.label, buffer.baseAddress, buffer.count, &error)
            }
            guard stored != 0 else { throw failure(error, "store") }
        }

        /// Deletes the item; a missing item is no error.
        static func remove(_ item: SecretServiceCredentialStore.Item) throws(CredentialStoreError) {
            var error: UnsafeMutablePointer<GError>?
            if sessionkit_secret_clear(item.service, item.account, &error) == 0, let error {
                throw failure(error, "delete")
            }
        }

        /// nil when a Secret Service with a default collection answers; else the reason.
        static func unavailabilityReason() -> String? {
            var error: UnsafeMutablePointer<GError>?
            guard sessionkit_secret_service_has_default_collection(&error) == 0 else { return nil }
            guard let error else { return "the Secret Service has no default collection" }
            defer { g_error_free(error) }
            return String(cString: error.pointee.message)
        }

        /// The store error for a libsecret failure; names the operation and the system's message,
        /// which never holds an item's value.
        private static func failure(_ error: UnsafeMutablePointer<GError>?, _ operation: String) -> CredentialStoreError {
            guard let error else { return .ioFailure("Secret Service \(operation) failed") }
            defer { g_error_free(error) }
            let message = "Secret Service \(operation): \(String(cString: error.pointee.message))"
            let (domain, code) = (error.pointee.domain, Int(error.pointee.code))
            if domain == sessionkit_secret_error_domain(), code == Int(SECRET_ERROR_IS_LOCKED.rawValue) {
                return .permissionDenied(message)
            }
            if domain == sessionkit_dbus_error_domain(), code == Int(G_DBUS_ERROR_ACCESS_DENIED.rawValue) {
                return .permissionDenied(message)
            }
            if domain == sessionkit_io_error_domain(), code == Int(G_IO_ERROR_CANCELLED.rawValue) {
                // A dismissed unlock prompt.
                return .permissionDenied(message)
            }
            return .ioFailure(message)
        }
    }
#endif
