#if canImport(Security)
    import CryptoKit
    import Foundation
    import Security

    /// Security/CryptoKit implementation of ``CryptoBackend`` for Apple platforms.
    ///
    /// RSA keys cross the Security API as PKCS #1 DER, built and read by ``RSAKeyDER``, which is
    /// shared with (and tested on) every platform.
    enum AppleCryptoBackend: CryptoBackend {
        /// Holds one immutable `SecKey`; Security allows concurrent use of a key for verifying and
        /// signing, so sharing the reference between threads is sound.
        final class Key: Sendable {
            nonisolated(unsafe) let secKey: SecKey

            init(_ secKey: SecKey) {
                self.secKey = secKey
            }
        }

        typealias PublicKeyHandle = Key
        typealias PrivateKeyHandle = Key

        static func sha256(_ message: UnsafeRawBufferPointer) -> [UInt8] {
            Array(SHA256.hash(data: message))
        }

        static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return true }
            return SecRandomCopyBytes(kSecRandomDefault, buffer.count, base) == errSecSuccess
        }

        static func makePublicKey(modulus: [UInt8], exponent: [UInt8]) -> Key? {
            let der = RSAKeyDER.publicKey(modulus: modulus, exponent: exponent)
            let attributes: [CFString: Any] = [
                kSecAttrKeyType: kSecAttrKeyTypeRSA,
                kSecAttrKeyClass: kSecAttrKeyClassPublic,
            ]
            var error: Unmanaged<CFError>?
            guard let key = SecKeyCreateWithData(Data(der) as CFData, attributes as CFDictionary, &error) else {
                error?.release()
                return nil
            }
            return Key(key)
        }

        static func verifyRS256(
            key: Key, signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer
        ) -> Bool {
            var error: Unmanaged<CFError>?
            let valid = SecKeyVerifySignature(
                key.secKey, .rsaSignatureMessagePKCS1v15SHA256, Data(message) as CFData, Data(signature) as CFData,
                &error)
            error?.release()
            return valid
        }

        static func generatePrivateKey(bitCount: Int) -> Key? {
            let attributes: [CFString: Any] = [
                kSecAttrKeyType: kSecAttrKeyTypeRSA,
                kSecAttrKeySizeInBits: bitCount,
            ]
            var error: Unmanaged<CFError>?
            guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
                error?.release()
                return nil
            }
            return Key(key)
        }

        static func signRS256(key: Key, message: UnsafeRawBufferPointer) -> [UInt8]? {
            var error: Unmanaged<CFError>?
            guard
                let signature = SecKeyCreateSignature(
                    key.secKey, .rsaSignatureMessagePKCS1v15SHA256, Data(message) as CFData, &error)
            else {
                error?.release()
                return nil
            }
            return [UInt8](signature as Data)
        }

        static func publicComponents(of key: Key) -> (modulus: [UInt8], exponent: [UInt8])? {
            guard let publicKey = SecKeyCopyPublicKey(key.secKey) else { return nil }
            var error: Unmanaged<CFError>?
            guard let data = SecKeyCopyExternalRepresentation(publicKey, &error) else {
                error?.release()
                return nil
            }
            return RSAKeyDER.parsePublicKey([UInt8](data as Data))
        }

        static func makeRSAPrivateKey(pkcs1DER: [UInt8]) -> Key? {
            // Security's external form of an RSA private key is PKCS #1 `RSAPrivateKey` DER.
            let attributes: [CFString: Any] = [
                kSecAttrKeyType: kSecAttrKeyTypeRSA,
                kSecAttrKeyClass: kSecAttrKeyClassPrivate,
            ]
            var error: Unmanaged<CFError>?
            guard let key = SecKeyCreateWithData(Data(pkcs1DER) as CFData, attributes as CFDictionary, &error) else {
                error?.release()
                return nil
            }
            return Key(key)
        }

        static func makeP256PublicKey(uncompressedPoint: [UInt8]) -> Key? {
            // Security validates the point (on the curve, not the identity) when it builds the key.
            let attributes: [CFString: Any] = [
                kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                kSecAttrKeyClass: kSecAttrKeyClassPublic,
                kSecAttrKeySizeInBits: 256,
            ]
            var error: Unmanaged<CFError>?
            guard uncompressedPoint.count == 65,
                let key = SecKeyCreateWithData(Data(uncompressedPoint) as CFData, attributes as CFDictionary, &error)
            else {
                error?.release()
                return nil
            }
            return Key(key)
        }

        static func verifyES256(
            key: Key, derSignature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer
        ) -> Bool {
            var error: Unmanaged<CFError>?
            let valid = SecKeyVerifySignature(
                key.secKey, .ecdsaSignatureMessageX962SHA256, Data(message) as CFData, Data(derSignature) as CFData, &error)
            error?.release()
            return valid
        }

        static func generateP256PrivateKey() -> Key? {
            let attributes: [CFString: Any] = [
                kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                kSecAttrKeySizeInBits: 256,
            ]
            var error: Unmanaged<CFError>?
            guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
                error?.release()
                return nil
            }
            return Key(key)
        }

        static func signES256(key: Key, message: UnsafeRawBufferPointer) -> [UInt8]? {
            var error: Unmanaged<CFError>?
            guard
                let signature = SecKeyCreateSignature(
                    key.secKey, .ecdsaSignatureMessageX962SHA256, Data(message) as CFData, &error)
            else {
                error?.release()
                return nil
            }
            return [UInt8](signature as Data)
        }

        static func p256PublicPoint(of key: Key) -> [UInt8]? {
            guard let publicKey = SecKeyCopyPublicKey(key.secKey) else { return nil }
            var error: Unmanaged<CFError>?
            guard let data = SecKeyCopyExternalRepresentation(publicKey, &error) else {
                error?.release()
                return nil
            }
            // The external form of an EC public key is the X9.63 uncompressed point.
            let point = [UInt8](data as Data)
            return point.count == 65 && point[0] == 0x04 ? point : nil
        }

        static func makeP256PrivateKey(scalar: [UInt8], uncompressedPoint: [UInt8]) -> Key? {
            // Security's external form of an EC private key is X9.63: `0x04 || x || y || d`.
            guard scalar.count == 32, uncompressedPoint.count == 65, uncompressedPoint[0] == 0x04 else { return nil }
            let attributes: [CFString: Any] = [
                kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom,
                kSecAttrKeyClass: kSecAttrKeyClassPrivate,
                kSecAttrKeySizeInBits: 256,
            ]
            var error: Unmanaged<CFError>?
            guard
                let key = SecKeyCreateWithData(
                    Data(uncompressedPoint + scalar) as CFData, attributes as CFDictionary, &error)
            else {
                error?.release()
                return nil
            }
            // Security does not promise a pair check: the public half it derives must be the one given.
            guard p256PublicPoint(of: Key(key)) == uncompressedPoint else { return nil }
            return Key(key)
        }

        static func p256PrivateScalar(of key: Key) -> [UInt8]? {
            var error: Unmanaged<CFError>?
            guard let data = SecKeyCopyExternalRepresentation(key.secKey, &error) else {
                error?.release()
                return nil
            }
            let bytes = [UInt8](data as Data)
            return bytes.count == 97 ? Array(bytes[65..<97]) : nil
        }
    }
#endif
