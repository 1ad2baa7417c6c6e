#if !canImport(Security) && canImport(CSessionKitOpenSSL)
    import CSessionKitOpenSSL
    import Synchronization

    /// OpenSSL 3 implementation of ``CryptoBackend``, through the C shim in `CSessionKitOpenSSL`.
    enum OpenSSLCryptoBackend: CryptoBackend {
        /// Owns one `EVP_PKEY` and frees it with the last reference.
        ///
        /// The key is never mutated after construction, and OpenSSL 3 allows concurrent
        /// verification and signing with one `EVP_PKEY` (each operation builds its own context), so
        /// sharing it between threads is sound even though the raw pointer type is not `Sendable`.
        final class Key: Sendable {
            nonisolated(unsafe) let pointer: OpaquePointer
            /// SHA-256 signing and verification contexts for this key, each set up on first use
            /// and copied for every operation after it: setting one up (looking the algorithms up,
            /// preparing the key for them) costs several microseconds, a copy a fraction of that.
            private let templates = Mutex(Templates())

            private struct Templates {
                var verify: OpaquePointer?
                var sign: OpaquePointer?
            }

            init(_ pointer: OpaquePointer) {
                self.pointer = pointer
            }

            deinit {
                templates.withLock { templates in
                    if let verify = templates.verify { sk_template_free(verify) }
                    if let sign = templates.sign { sk_template_free(sign) }
                }
                sk_key_free(pointer)
            }

            /// A fresh SHA-256 context for one verification (`sign` false) or one signature with
            /// this key, copied from the key's template; nil when OpenSSL could not make one. The
            /// lock covers only making the template and copying it, never the operation.
            func context(sign: Bool) -> OpaquePointer? {
                templates.withLock { templates -> OpaquePointer? in
                    if sign {
                        if templates.sign == nil { templates.sign = sk_template_sha256(pointer, 1) }
                        return templates.sign.flatMap { sk_template_copy($0) }
                    }
                    if templates.verify == nil { templates.verify = sk_template_sha256(pointer, 0) }
                    return templates.verify.flatMap { sk_template_copy($0) }
                }
            }

            /// `EVP_DigestVerify` with SHA-256 over `message`: 1 for a valid signature.
            func verifySHA256(_ signature: UnsafePointer<UInt8>, _ signatureCount: Int, _ message: UnsafeRawBufferPointer)
                -> Int32
            {
                guard let context = context(sign: false) else {
                    return sk_rsa_verify_sha256(pointer, signature, signatureCount, message.baseAddress, message.count)
                }
                return sk_verify_with_copy(context, signature, signatureCount, message.baseAddress, message.count)
            }

            /// `EVP_DigestSign` with SHA-256 over `message` into `out`: 1 on success.
            func signSHA256(
                _ message: UnsafeRawBufferPointer, _ out: UnsafeMutablePointer<UInt8>?, _ capacity: Int,
                _ written: UnsafeMutablePointer<Int>
            ) -> Int32 {
                guard let context = context(sign: true) else {
                    return sk_rsa_sign_sha256(pointer, message.baseAddress, message.count, out, capacity, written)
                }
                return sk_sign_with_copy(context, message.baseAddress, message.count, out, capacity, written)
            }
        }

        typealias PublicKeyHandle = Key
        typealias PrivateKeyHandle = Key

        /// The fetched SHA-256 implementation; nil only if the fetch failed, in which case each digest
        /// falls back to OpenSSL's own lookup.
        ///
        /// An `EVP_MD` is immutable once fetched and OpenSSL allows concurrent use, so one shared
        /// instance is sound although its pointer type is not `Sendable`.
        final class Digest: Sendable {
            nonisolated(unsafe) let pointer: OpaquePointer?

            init() {
                pointer = sk_sha256_fetch()
            }
        }

        static let digest = Digest()

        static func sha256(_ message: UnsafeRawBufferPointer) -> [UInt8] {
            [UInt8](unsafeUninitializedCapacity: 32) { buffer, count in
                let ok = sk_sha256(digest.pointer, message.baseAddress, message.count, buffer.baseAddress)
                // EVP_Digest over the built-in SHA-256 only fails when memory is exhausted.
                precondition(ok == 1, "SHA-256 failed in OpenSSL")
                count = 32
            }
        }

        static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) -> Bool {
            guard let base = buffer.baseAddress else { return true }
            return sk_random_bytes(base.assumingMemoryBound(to: UInt8.self), buffer.count) == 1
        }

        static func makePublicKey(modulus: [UInt8], exponent: [UInt8]) -> Key? {
            let pointer = modulus.withUnsafeBufferPointer { n in
                exponent.withUnsafeBufferPointer { e in
                    sk_rsa_public_key(n.baseAddress, n.count, e.baseAddress, e.count)
                }
            }
            return pointer.map(Key.init)
        }

        static func verifyRS256(
            key: Key, signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer
        ) -> Bool {
            guard let signatureBase = signature.baseAddress, !signature.isEmpty else { return false }
            return key.verifySHA256(signatureBase.assumingMemoryBound(to: UInt8.self), signature.count, message) == 1
        }

        static func generatePrivateKey(bitCount: Int) -> Key? {
            guard let bits = UInt32(exactly: bitCount) else { return nil }
            return sk_rsa_generate(bits).map(Key.init)
        }

        static func signRS256(key: Key, message: UnsafeRawBufferPointer) -> [UInt8]? {
            let capacity = Int(sk_key_size(key.pointer))
            guard capacity > 0 else { return nil }
            var ok = false
            let signature = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                var written = 0
                ok =
                    sk_rsa_sign_sha256(
                        key.pointer, message.baseAddress, message.count, buffer.baseAddress, capacity, &written) == 1
                count = ok ? written : 0
            }
            return ok ? signature : nil
        }

        static func publicComponents(of key: Key) -> (modulus: [UInt8], exponent: [UInt8])? {
            guard let modulus = component(of: key, which: 0), let exponent = component(of: key, which: 1) else {
                return nil
            }
            return (modulus, exponent)
        }

        static func makeRSAPrivateKey(pkcs1DER: [UInt8]) -> Key? {
            pkcs1DER.withUnsafeBufferPointer { sk_rsa_private_key_from_der($0.baseAddress, $0.count) }.map(Key.init)
        }

        static func makeP256PublicKey(uncompressedPoint: [UInt8]) -> Key? {
            uncompressedPoint.withUnsafeBufferPointer { sk_p256_public_key($0.baseAddress, $0.count) }.map(Key.init)
        }

        static func verifyES256(
            key: Key, derSignature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer
        ) -> Bool {
            guard let signatureBase = derSignature.baseAddress, !derSignature.isEmpty else { return false }
            return key.verifySHA256(signatureBase.assumingMemoryBound(to: UInt8.self), derSignature.count, message) == 1
        }

        static func generateP256PrivateKey() -> Key? {
            sk_p256_generate().map(Key.init)
        }

        static func signES256(key: Key, message: UnsafeRawBufferPointer) -> [UInt8]? {
            let capacity = Int(sk_key_size(key.pointer))
            guard capacity > 0 else { return nil }
            var ok = false
            let signature = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                var written = 0
                ok = key.signSHA256(message, buffer.baseAddress, capacity, &written) == 1
                count = ok ? written : 0
            }
            return ok ? signature : nil
        }

        static func p256PublicPoint(of key: Key) -> [UInt8]? {
            var ok = false
            let point = [UInt8](unsafeUninitializedCapacity: 65) { buffer, count in
                let written = sk_ec_public_point(key.pointer, buffer.baseAddress, 65)
                ok = written == 65
                count = ok ? 65 : 0
            }
            return ok && point[0] == 0x04 ? point : nil
        }

        static func makeP256PrivateKey(scalar: [UInt8], uncompressedPoint: [UInt8]) -> Key? {
            scalar.withUnsafeBufferPointer { d in
                uncompressedPoint.withUnsafeBufferPointer { point in
                    sk_p256_private_key(d.baseAddress, d.count, point.baseAddress, point.count)
                }
            }.map(Key.init)
        }

        static func p256PrivateScalar(of key: Key) -> [UInt8]? {
            var ok = false
            let scalar = [UInt8](unsafeUninitializedCapacity: 32) { buffer, count in
                ok = sk_p256_private_scalar(key.pointer, buffer.baseAddress, 32) == 32
                count = ok ? 32 : 0
            }
            return ok ? scalar : nil
        }

        private static func component(of key: Key, which: Int32) -> [UInt8]? {
            let capacity = max(Int(sk_key_size(key.pointer)), 8)
            var ok = false
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                let written = sk_rsa_component(key.pointer, which, buffer.baseAddress, capacity)
                ok = written >= 0
                count = ok ? Int(written) : 0
            }
            return ok ? bytes : nil
        }
    }
#endif
