public import Foundation
public import SessionKitCore

extension DeviceKeyManager {
    /// A device-bound key (1pass.dev): the Bearer credential for account-level calls such as app disconnect.
    public struct DeviceKey: Sendable, Equatable, CustomStringConvertible {
        /// The key itself; a secret.
        public let value: Secret
        /// When the provider stops accepting it.
        public let expiresAt: Date

        /// Creates a device key.
        public init(value: Secret, expiresAt: Date) {
            self.value = value
            self.expiresAt = expiresAt
        }

        /// The expiry only; the key is redacted.
        public var description: String { "DeviceKey(<redacted>, expiresAt: \(expiresAt))" }
    }
}
