#if canImport(Security) && canImport(LocalAuthentication)
    import Dispatch
    import Foundation
    import LocalAuthentication
    import Security
    public import SessionKitCore

    /// A ``BiometricGate`` in the Keychain, created as the 1pass.dev integration guide creates its
    /// high-assurance item: a generic password with access control
    /// `SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly,
    /// .biometryCurrentSet, nil)`. The system asks for the person's biometrics on every read, and
    /// invalidates the item when the enrolled biometrics change (the read then finds no item).
    ///
    /// Beside it lives a metadata item (`account + ".metadata"`, `WhenUnlockedThisDeviceOnly`, no
    /// access control) holding no secret: the subject and expiry ``HighAssuranceVault`` decides on
    /// without asking the person.
    ///
    /// Keychain calls block while the system prompt is up; they run on a serial dispatch queue of
    /// this gate, never on the Swift concurrency pool. This type is compiled only where Security and
    /// LocalAuthentication exist; the Linux build and tests do not cover it. It holds no decision:
    /// those are the vault's.
    public final class KeychainBiometricGate: BiometricGate {
        /// The Keychain service of both items.
        public let service: String
        /// The account of the protected item; the metadata item's is `account + ".metadata"`.
        public let account: String
        /// The Keychain access group, if the items are shared.
        public let accessGroup: String?

        private let queue = DispatchQueue(label: "SessionKit.KeychainBiometricGate")

        /// Creates a gate; nothing is touched until first use.
        public init(service: String, account: String = "high-assurance", accessGroup: String? = nil) {
            self.service = service
            self.account = account
            self.accessGroup = accessGroup
        }

        /// Whether biometrics can be evaluated now (`LAContext.canEvaluatePolicy`).
        public func availability() async -> BiometricAvailability {
            await performWithoutFailure { () -> BiometricAvailability in
                let context = LAContext()
                var error: NSError?
                if context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error) { return .available }
                if let error, error.domain == LAErrorDomain, error.code == LAError.Code.biometryNotEnrolled.rawValue {
                    return .notEnrolled
                }
                return .unavailable(error?.localizedDescription ?? "biometrics cannot be evaluated")
            }
        }

        /// Replaces the protected item and its metadata.
        public func store(_ payload: Secret, metadata: [UInt8]) async throws(BiometricGateError) {
            let (protected, plain) = (query(account), query(account + ".metadata"))
            try await perform { () throws(BiometricGateError) in
                var error: Unmanaged<CFError>?
                guard
                    let control = SecAccessControlCreateWithFlags(
                        nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .biometryCurrentSet, &error)
                else {
                    let message = error.map { CFErrorCopyDescription($0.takeRetainedValue()) as String } ?? "no access control"
                    throw .failed("access control: \(message)")
                }
                try Self.delete(protected)
                try Self.delete(plain)
                var item: [String: Any] = protected
                item[kSecAttrAccessControl as String] = control
                item[kSecValueData as String] = Data(payload.value.utf8)
                try Self.check(SecItemAdd(item as CFDictionary, nil), "add")
                var record: [String: Any] = plain
                record[kSecAttrAccessible as String] = kSecAttrAccessibleWhenUnlockedThisDeviceOnly
                record[kSecValueData as String] = Data(metadata)
                try Self.check(SecItemAdd(record as CFDictionary, nil), "add metadata")
            }
        }

        /// Reads the metadata item, which never asks the person.
        public func storedMetadata() async throws(BiometricGateError) -> [UInt8]? {
            let plain = query(account + ".metadata")
            return try await perform { () throws(BiometricGateError) -> [UInt8]? in
                var request: [String: Any] = plain
                request[kSecReturnData as String] = true
                request[kSecMatchLimit as String] = kSecMatchLimitOne
                var result: CFTypeRef?
                let status = SecItemCopyMatching(request as CFDictionary, &result)
                if status == errSecItemNotFound { return nil }
                try Self.check(status, "read metadata")
                return (result as? Data).map(Array.init)
            }
        }

        /// Reads the protected item with an `LAContext` carrying `reason`; `errSecItemNotFound`
        /// (the item was invalidated by an enrollment change, or removed) is `nil`.
        public func read(reason: String) async throws(BiometricGateError) -> Secret? {
            let protected = query(account)
            return try await perform { () throws(BiometricGateError) -> Secret? in
                let context = LAContext()
                context.localizedReason = reason
                var request: [String: Any] = protected
                request[kSecReturnData as String] = true
                request[kSecMatchLimit as String] = kSecMatchLimitOne
                request[kSecUseAuthenticationContext as String] = context
                var result: CFTypeRef?
                let status = SecItemCopyMatching(request as CFDictionary, &result)
                switch status {
                case errSecSuccess:
                    guard let data = result as? Data else { throw .failed("the item holds no data") }
                    return Secret(String(decoding: data, as: UTF8.self))
                case errSecItemNotFound:
                    return nil
                case errSecUserCanceled, errSecAuthFailed:
                    throw .notConfirmed
                case errSecInteractionNotAllowed:
                    throw .interactionNotAllowed
                default:
                    throw Self.failure(status, "read")
                }
            }
        }

        /// Deletes both items; a missing item is no error, and deleting never asks the person.
        public func remove() async throws(BiometricGateError) {
            let (protected, plain) = (query(account), query(account + ".metadata"))
            try await perform { () throws(BiometricGateError) in
                try Self.delete(protected)
                try Self.delete(plain)
            }
        }

        // MARK: Keychain calls

        private func query(_ account: String) -> [String: any Sendable] {
            var query: [String: any Sendable] = [
                kSecClass as String: kSecClassGenericPassword as String,
                kSecAttrService as String: service,
                kSecAttrAccount as String: account,
                kSecUseDataProtectionKeychain as String: true,
            ]
            if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
            return query
        }

        private static func delete(_ query: [String: any Sendable]) throws(BiometricGateError) {
            let untyped: [String: Any] = query
            let status = SecItemDelete(untyped as CFDictionary)
            guard status == errSecSuccess || status == errSecItemNotFound else { throw failure(status, "delete") }
        }

        private static func check(_ status: OSStatus, _ operation: String) throws(BiometricGateError) {
            guard status == errSecSuccess else { throw failure(status, operation) }
        }

        private static func failure(_ status: OSStatus, _ operation: String) -> BiometricGateError {
            let text = (SecCopyErrorMessageString(status, nil) as String?) ?? "OSStatus \(status)"
            return .failed("Keychain \(operation): \(text)")
        }

        private func perform<Value: Sendable>(
            _ work: @escaping @Sendable () throws(BiometricGateError) -> Value
        ) async throws(BiometricGateError) -> Value {
            let queue = queue
            let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, BiometricGateError>, Never>) in
                queue.async { continuation.resume(returning: Result { () throws(BiometricGateError) in try work() }) }
            }
            return try result.get()
        }

        private func performWithoutFailure<Value: Sendable>(_ work: @escaping @Sendable () -> Value) async -> Value {
            let queue = queue
            return await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                queue.async { continuation.resume(returning: work()) }
            }
        }
    }
#endif
