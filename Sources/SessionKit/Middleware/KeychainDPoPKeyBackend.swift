#if canImport(Security)
    import CryptoKit
    import Foundation
    import Security
    import SessionKitJOSE

    /// Apple glue for ``PlatformDPoPKeyStore``: P-256 keys in the Secure Enclave or as Keychain
    /// key items (`AfterFirstUnlockThisDeviceOnly`, never synchronised), found again by an
    /// application tag. Which to use, and what to do when one fails, is decided by
    /// ``PlatformDPoPKeyStore``.
    public struct KeychainDPoPKeyBackend: DPoPPlatformKeyBackend {
        /// A backend over the Keychain and the Secure Enclave.
        public init() {}

        public var hasSecureEnclave: Bool { SecureEnclave.isAvailable }

        public func makeKey(in placement: StoredDPoPKey.Placement, tag: String) throws(DPoPKeyStoreError) -> any DPoPSigningKey {
            let flags: SecAccessControlCreateFlags = placement == .secureEnclave ? [.privateKeyUsage] : []
            guard
                let access = SecAccessControlCreateWithFlags(
                    nil, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly, flags, nil)
            else { throw DPoPKeyStoreError("the key's access control could not be made") }
            var attributes: [CFString: Any] = [
                kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                kSecAttrKeySizeInBits: 256,
                kSecPrivateKeyAttrs: [
                    kSecAttrIsPermanent: true,
                    kSecAttrApplicationTag: Data(tag.utf8),
                    kSecAttrAccessControl: access,
                ] as [CFString: Any],
            ]
            if placement == .secureEnclave { attributes[kSecAttrTokenID] = kSecAttrTokenIDSecureEnclave }
            var error: Unmanaged<CFError>?
            guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
                throw DPoPKeyStoreError("the platform did not make a P-256 key")
            }
            return try KeychainDPoPKey(key)
        }

        public func findKey(in placement: StoredDPoPKey.Placement, tag: String) throws(DPoPKeyStoreError) -> (any DPoPSigningKey)? {
            let query: [CFString: Any] = [
                kSecClass: kSecClassKey,
                kSecAttrApplicationTag: Data(tag.utf8),
                kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                kSecAttrKeyClass: kSecAttrKeyClassPrivate,
                kSecReturnRef: true,
            ]
            var item: CFTypeRef?
            let status = SecItemCopyMatching(query as CFDictionary, &item)
            if status == errSecItemNotFound { return nil }
            guard status == errSecSuccess, let item, CFGetTypeID(item) == SecKeyGetTypeID() else {
                throw DPoPKeyStoreError("the Keychain answered \(status)")
            }
            // The type ID was checked above: the cast cannot fail.
            // swift-format-ignore
            return try KeychainDPoPKey(item as! SecKey)
        }

        public func deleteKey(in placement: StoredDPoPKey.Placement, tag: String) {
            let query: [CFString: Any] = [
                kSecClass: kSecClassKey,
                kSecAttrApplicationTag: Data(tag.utf8),
                kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
            ]
            _ = SecItemDelete(query as CFDictionary)
        }
    }

    /// A private key the platform holds: it signs, and shows only its public half.
    final class KeychainDPoPKey: DPoPSigningKey, CustomStringConvertible {
        /// Security allows concurrent signing with one key, so sharing the immutable reference
        /// between threads is sound (as the crypto backend's keys).
        nonisolated(unsafe) let secKey: SecKey
        let publicKey: P256PublicKey

        init(_ secKey: SecKey) throws(DPoPKeyStoreError) {
            var error: Unmanaged<CFError>?
            guard let publicKey = SecKeyCopyPublicKey(secKey),
                let point = SecKeyCopyExternalRepresentation(publicKey, &error) as Data?, point.count == 65, point.first == 0x04,
                let key = try? P256PublicKey(x: Array(point[1..<33]), y: Array(point[33..<65]))
            else { throw DPoPKeyStoreError("the platform key is not a P-256 key") }
            self.secKey = secKey
            self.publicKey = key
        }

        func signES256(_ message: [UInt8]) throws(CryptoError) -> [UInt8] {
            var error: Unmanaged<CFError>?
            guard
                let der = SecKeyCreateSignature(secKey, .ecdsaSignatureMessageX962SHA256, Data(message) as CFData, &error) as Data?,
                let signature = ECDSASignature.p1363(fromDER: Array(der))
            else { throw .signingFailed }
            return signature
        }

        /// Names the type only: never key material.
        var description: String { "KeychainDPoPKey(redacted)" }
    }
#endif
