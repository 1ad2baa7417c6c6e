#if canImport(Security)
    import Dispatch
    public import Foundation
    import Security
    public import SessionKitCore

    /// A ``CredentialStore``, ``DeviceCredentialStore`` and ``GuestCredentialStore`` in the Keychain,
    /// for Apple platforms.
    ///
    /// The credential record, the device credential and the guest credential are generic-password
    /// items in three services, each holding the same framed bytes as ``FileCredentialStore``'s files (schema version,
    /// kind, SHA-256), so damage and newer schemas are reported the same way. Items are
    /// `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`: readable by background refreshes once the
    /// device was unlocked after boot, never synced or restored to another device. They live in the
    /// data-protection Keychain, which needs the app's application identifier (or `accessGroup`) as an
    /// entitlement.
    ///
    /// Each save replaces one item with `SecItemUpdate` (or adds it), which the Keychain applies
    /// atomically. The lease is in-process; give `leaseDirectory` (for instance the shared app-group
    /// container) to make it exclude the app's extensions too, with the same `flock` lease as the
    /// file store.
    ///
    /// This type is compiled only where the Security framework exists; the Linux build and tests do
    /// not cover it.
    public final class KeychainCredentialStore: CredentialStore, DeviceCredentialStore, GuestCredentialStore {
        /// Where one item lives; `Sendable` so Keychain calls can run on the store's queue.
        private struct Item: Sendable {
            var service: String
            var account: String
            var accessGroup: String?

            var query: [String: Any] {
                var query: [String: Any] = [
                    kSecClass as String: kSecClassGenericPassword,
                    kSecAttrService as String: service,
                    kSecAttrAccount as String: account,
                    kSecUseDataProtectionKeychain as String: true,
                ]
                if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
                return query
            }
        }

        /// The Keychain service of the credential record.
        public let service: String
        /// The Keychain service of the device credential, apart from the refresh token.
        public let deviceService: String
        /// The Keychain service of the guest credential, apart from both.
        public let guestService: String
        /// The Keychain access group shared with extensions, if any.
        public let accessGroup: String?

        private let credentials: Item
        private let device: Item
        private let guest: Item
        private let queue: DispatchQueue
        private let lease: LeaseKeeper

        /// Creates a store in the Keychain.
        ///
        /// - Parameters:
        ///   - service: the service of the credential record item, e.g. the app's bundle identifier.
        ///   - deviceService: the service of the device credential item; defaults to `service + ".device"`.
        ///   - guestService: the service of the guest credential item; defaults to `service + ".guest"`.
        ///   - accessGroup: a Keychain access group to share the items with extensions.
        ///   - leaseDirectory: a directory shared with the other processes that use these items (an
        ///     app-group container); when given, ``withLease(_:)`` excludes them as well.
        public init(
            service: String, deviceService: String? = nil, guestService: String? = nil, accessGroup: String? = nil,
            leaseDirectory: URL? = nil
        ) {
            self.service = service
            self.deviceService = deviceService ?? service + ".device"
            self.guestService = guestService ?? service + ".guest"
            self.accessGroup = accessGroup
            credentials = Item(service: service, account: "credentials", accessGroup: accessGroup)
            device = Item(service: self.deviceService, account: "device", accessGroup: accessGroup)
            guest = Item(service: self.guestService, account: "guest", accessGroup: accessGroup)
            let queue = DispatchQueue(label: "SessionKit.KeychainCredentialStore")
            self.queue = queue
            guard let leaseDirectory else {
                lease = LeaseKeeper.shared(forKey: "keychain:" + service) { LeaseKeeper(crossProcess: nil) }
                return
            }
            let path = leaseDirectory.standardizedFileURL.path(percentEncoded: false)
            let fileSystem = POSIXFileSystem()
            let directory = StoreDirectory(path: path, fileSystem: fileSystem, managedNames: [])
            let lock = FileLock(path: directory.filePath(service + ".lease.lock"), fileSystem: fileSystem)
            lease = LeaseKeeper.shared(forKey: "keychain:" + service + "@" + path) {
                LeaseKeeper(crossProcess: {
                    try await Self.perform(on: queue) { () throws(CredentialStoreError) in try directory.prepare() }
                    let descriptor = try await lock.acquire()
                    return { lock.release(descriptor) }
                })
            }
        }

        /// Reads the credential record; an empty record when none was saved.
        public func load() async throws(CredentialStoreError) -> CredentialRecord {
            let item = credentials
            return try await Self.perform(on: queue) { () throws(CredentialStoreError) in
                guard let bytes = try Self.read(item) else { return CredentialRecord() }
                return try StoredPayloadCodec.openRecord(bytes)
            }
        }

        /// Replaces the credential record item.
        public func save(_ record: CredentialRecord) async throws(CredentialStoreError) {
            let item = credentials
            let bytes = try StoredPayloadCodec.seal(record)
            try await Self.perform(on: queue) { () throws(CredentialStoreError) in try Self.write(bytes, to: item) }
        }

        /// Runs `body` while holding the store's lease (see the type's discussion for its reach).
        public func withLease<Value: Sendable>(_ body: @Sendable () async throws -> Value) async throws -> Value {
            try await lease.withLease(body)
        }

        /// Reads the device credential, or nil when none was saved.
        public func loadDevice() async throws(CredentialStoreError) -> DeviceCredential? {
            let item = device
            return try await Self.perform(on: queue) { () throws(CredentialStoreError) in
                guard let bytes = try Self.read(item) else { return nil }
                return try StoredPayloadCodec.openDevice(bytes)
            }
        }

        /// Replaces the device credential item.
        public func saveDevice(_ credential: DeviceCredential) async throws(CredentialStoreError) {
            let item = device
            let bytes = try StoredPayloadCodec.seal(credential)
            try await Self.perform(on: queue) { () throws(CredentialStoreError) in try Self.write(bytes, to: item) }
        }

        /// Deletes the device credential item; deleting a missing one succeeds.
        public func removeDevice() async throws(CredentialStoreError) {
            let item = device
            try await Self.perform(on: queue) { () throws(CredentialStoreError) in
                let status = SecItemDelete(item.query as CFDictionary)
                guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.error(status, "delete") }
            }
        }

        // MARK: Auxiliary items

        /// Reads another item of the store's service (`account` beside the credential record),
        /// such as a used-token ledger; nil when there is none.
        package func loadAuxiliaryItem(account: String) async throws(CredentialStoreError) -> [UInt8]? {
            let item = Item(service: service, account: account, accessGroup: accessGroup)
            return try await Self.perform(on: queue) { () throws(CredentialStoreError) in try Self.read(item) }
        }

        /// Replaces another item of the store's service, with the record's accessibility.
        package func saveAuxiliaryItem(_ bytes: [UInt8], account: String) async throws(CredentialStoreError) {
            let item = Item(service: service, account: account, accessGroup: accessGroup)
            try await Self.perform(on: queue) { () throws(CredentialStoreError) in try Self.write(bytes, to: item) }
        }

        /// Deletes another item of the store's service; deleting a missing one succeeds.
        package func removeAuxiliaryItem(account: String) async throws(CredentialStoreError) {
            let item = Item(service: service, account: account, accessGroup: accessGroup)
            try await Self.perform(on: queue) { () throws(CredentialStoreError) in
                let status = SecItemDelete(item.query as CFDictionary)
                guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.error(status, "delete") }
            }
        }

        /// Reads the guest credential, or nil when none was saved.
        public func loadGuest() async throws(CredentialStoreError) -> GuestCredential? {
            let item = guest
            return try await Self.perform(on: queue) { () throws(CredentialStoreError) in
                guard let bytes = try Self.read(item) else { return nil }
                return try StoredPayloadCodec.openGuest(bytes)
            }
        }

        /// Replaces the guest credential item.
        public func saveGuest(_ credential: GuestCredential) async throws(CredentialStoreError) {
            let item = guest
            let bytes = try StoredPayloadCodec.seal(credential)
            try await Self.perform(on: queue) { () throws(CredentialStoreError) in try Self.write(bytes, to: item) }
        }

        /// Deletes the guest credential item; deleting a missing one succeeds.
        public func removeGuest() async throws(CredentialStoreError) {
            let item = guest
            try await Self.perform(on: queue) { () throws(CredentialStoreError) in
                let status = SecItemDelete(item.query as CFDictionary)
                guard status == errSecSuccess || status == errSecItemNotFound else { throw Self.error(status, "delete") }
            }
        }

        // MARK: Keychain calls

        private static func read(_ item: Item) throws(CredentialStoreError) -> [UInt8]? {
            var query = item.query
            query[kSecReturnData as String] = true
            query[kSecMatchLimit as String] = kSecMatchLimitOne
            var result: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &result)
            switch status {
            case errSecSuccess:
                guard let data = result as? Data else { throw .corrupted("the Keychain item holds no data") }
                return Array(data)
            case errSecItemNotFound:
                return nil
            default:
                throw error(status, "read")
            }
        }

        private static func write(_ bytes: [UInt8], to item: Item) throws(CredentialStoreError) {
            let attributes: [String: Any] = [
                kSecValueData as String: Data(bytes),
                kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
            ]
            // Another process may add the item between a failed update and our add; one more update
            // then replaces what it wrote, as a later save would.
            for _ in 0..<2 {
                let updated = SecItemUpdate(item.query as CFDictionary, attributes as CFDictionary)
                if updated == errSecSuccess { return }
                guard updated == errSecItemNotFound else { throw error(updated, "update") }
                let added = SecItemAdd(item.query.merging(attributes) { _, new in new } as CFDictionary, nil)
                if added == errSecSuccess { return }
                guard added == errSecDuplicateItem else { throw error(added, "add") }
            }
            throw .ioFailure("Keychain update: the item kept changing")
        }

        private static func error(_ status: OSStatus, _ operation: String) -> CredentialStoreError {
            let text = (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
            let message = "Keychain \(operation): \(text)"
            switch status {
            case errSecInteractionNotAllowed:
                // Before the first unlock, or during prewarm: the item is there, just not readable yet.
                return .locked(message)
            case errSecMissingEntitlement, errSecAuthFailed, errSecWrPerm, errSecNoAccessForItem:
                return .permissionDenied(message)
            case errSecDiskFull:
                return .noSpace
            default:
                return .ioFailure(message)
            }
        }

        private static func perform<Value: Sendable>(
            on queue: DispatchQueue, _ work: @escaping @Sendable () throws(CredentialStoreError) -> Value
        ) async throws(CredentialStoreError) -> Value {
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, CredentialStoreError>, Never>) in
                queue.async {
                    continuation.resume(returning: Result { () throws(CredentialStoreError) in try work() })
                }
            }
            return try result.get()
        }
    }
#endif
