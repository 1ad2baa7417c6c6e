import SessionKitJOSE
import Testing

/// Reading private keys from PEM text: the PKCS #8 and traditional forms of RSA and P-256 keys
/// sign, and every other input is a typed error that shows none of it.
@Suite struct PrivateKeyPEMTests {
    @Test func anRSAKeyInPKCS8AndInPKCS1IsTheSameKeyAndSigns() throws {
        guard case .rsa(let pkcs8) = try PrivateKeyPEM.decode(TestPrivateKeys.rsaPKCS8),
            case .rsa(let pkcs1) = try PrivateKeyPEM.decode(TestPrivateKeys.rsaPKCS1)
        else {
            Issue.record("an RSA key was not read as RSA")
            return
        }
        #expect(pkcs8.publicJWK(keyID: "k") == pkcs1.publicJWK(keyID: "k"))
        #expect(pkcs8.publicKey.modulusBitCount == 2048)
        let message = Array("header.payload".utf8)
        let signature = try pkcs1.signRS256(message)
        #expect(pkcs8.publicKey.verifyRS256(signature: signature, message: message))
    }

    @Test func aP256KeyInSEC1AndInPKCS8IsTheSameKeyAndSigns() throws {
        let key = try P256PrivateKey.generate()
        let sec1 = try Self.sec1(key)
        for pem in [Self.pem("EC PRIVATE KEY", sec1), Self.pem("PRIVATE KEY", Self.pkcs8(ecPrivateKey: sec1))] {
            guard case .p256(let read) = try PrivateKeyPEM.decode(pem) else {
                Issue.record("a P-256 key was not read as P-256")
                continue
            }
            #expect(read.publicKey.x == key.publicKey.x && read.publicKey.y == key.publicKey.y)
            let message = Array("header.payload".utf8)
            #expect(key.publicKey.verifyES256(signature: try read.signES256(message), message: message))
        }
    }

    @Test func opensslKeysWithAParametersBlockCRLFAndTextAroundAreRead() throws {
        guard case .p256 = try PrivateKeyPEM.decode(TestPrivateKeys.p256WithParameters) else {
            Issue.record("openssl ecparam's output was not read")
            return
        }
        let windows = "Key for the test client\r\n" + TestPrivateKeys.rsaPKCS8.replacing("\n", with: "\r\n") + "\r\n"
        guard case .rsa = try PrivateKeyPEM.decode(bytes: Array(windows.utf8)) else {
            Issue.record("CRLF line ends were not read")
            return
        }
    }

    /// Bad inputs by name, so the test output names the case and never prints a key.
    static let badInputs: [String: (pem: String, error: PrivateKeyPEMError)] = [
        "PKCS #8 encrypted": (TestPrivateKeys.encryptedPKCS8, .encrypted),
        "legacy PEM encryption": (TestPrivateKeys.encryptedLegacy, .encrypted),
        "1024-bit RSA": (TestPrivateKeys.rsa1024, .keyRejected),
        "P-384": (TestPrivateKeys.p384, .unsupportedCurve),
        "Ed25519": (TestPrivateKeys.ed25519, .unsupportedKeyType),
        "a public key": (TestPrivateKeys.ecPublicKey, .notAPrivateKey),
        "SEC 1 without the public key": (TestPrivateKeys.p256WithoutPublicKey, .missingPublicKey),
        "two keys": (TestPrivateKeys.rsaPKCS8 + "\n" + TestPrivateKeys.rsaPKCS1, .severalKeys),
        "empty": ("", .notPEM),
        "plain text": ("not a key at all", .notPEM),
        "no END line": ("-----BEGIN PRIVATE KEY-----\nMIIB\n", .notPEM),
        "END of another label": ("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n", .notPEM),
        "a character outside base64": ("-----BEGIN PRIVATE KEY-----\nM*IB\n-----END PRIVATE KEY-----\n", .invalidBase64),
        "data after padding": ("-----BEGIN PRIVATE KEY-----\nMA=A\n-----END PRIVATE KEY-----\n", .invalidBase64),
        "an empty block": ("-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n", .malformedKey),
        "an empty SEQUENCE": ("-----BEGIN PRIVATE KEY-----\nMAA=\n-----END PRIVATE KEY-----\n", .malformedKey),
    ]

    @Test(arguments: badInputs.keys.sorted())
    func badInputIsATypedErrorThatShowsNoneOfIt(_ name: String) throws {
        let (pem, expected) = try #require(Self.badInputs[name])
        #expect(throws: expected) { try PrivateKeyPEM.decode(pem) }
        #expect(!expected.description.contains("MII"))
    }

    @Test func truncatedOrAlteredDERIsRefusedNeverCrashes() throws {
        let der = Self.derOfBlock(TestPrivateKeys.rsaPKCS8)
        // Every truncation, and a flipped byte at every 7th position, fails with a typed error or
        // (where the flip lands in a number OpenSSL cannot check) reads a different key; nothing traps.
        for length in stride(from: 0, to: der.count, by: 5) {
            #expect(throws: PrivateKeyPEMError.self) { try PrivateKeyPEM.decode(Self.pem("PRIVATE KEY", Array(der.prefix(length)))) }
        }
        var refused = 0
        for position in stride(from: 0, to: der.count, by: 7) {
            var altered = der
            altered[position] ^= 0x41
            do {
                _ = try PrivateKeyPEM.decode(Self.pem("PRIVATE KEY", altered))
            } catch {
                refused += 1
            }
        }
        #expect(refused > der.count / 7 / 2)
    }

    @Test func aScalarWithAnotherKeysPointIsRefused() throws {
        let key = try P256PrivateKey.generate()
        let other = try P256PrivateKey.generate()
        var sec1 = try Self.sec1(key)
        let point = [0x04] + other.publicKey.x + other.publicKey.y
        sec1.replaceSubrange((sec1.count - 65)..<sec1.count, with: point)
        #expect(throws: PrivateKeyPEMError.keyRejected) { try PrivateKeyPEM.decode(Self.pem("EC PRIVATE KEY", sec1)) }
    }

    @Test func renderingsShowTheKeyTypeOnly() throws {
        let key = try PrivateKeyPEM.decode(TestPrivateKeys.rsaPKCS8)
        let body = TestPrivateKeys.rsaPKCS8.split(separator: "\n")[1]
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("handle"))
        for rendering in ["\(key)", String(reflecting: key)] {
            #expect(rendering == "PrivateKeyPEM.rsa(redacted)")
            #expect(!rendering.contains(body.prefix(16)))
        }
    }

    // MARK: - Building PEM in the test

    /// SEC 1 `ECPrivateKey` with the named curve and the public key.
    static func sec1(_ key: P256PrivateKey) throws -> [UInt8] {
        let scalar = try key.exportScalar()
        let curve: [UInt8] = [0xA0, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
        let point = [0x04] + key.publicKey.x + key.publicKey.y
        let publicKey: [UInt8] = [0xA1, 0x44, 0x03, 0x42, 0x00] + point
        let body: [UInt8] = [0x02, 0x01, 0x01, 0x04, 0x20] + scalar + curve + publicKey
        return [0x30, 0x77] + body
    }

    /// PKCS #8 around a SEC 1 key whose curve the algorithm names.
    static func pkcs8(ecPrivateKey: [UInt8]) -> [UInt8] {
        let algorithm: [UInt8] = [
            0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03,
            0x01, 0x07,
        ]
        // DER lengths are minimal: one octet below 128.
        let octets: [UInt8] = [0x04, UInt8(ecPrivateKey.count)] + ecPrivateKey
        let body: [UInt8] = [0x02, 0x01, 0x00] + algorithm + octets
        return [0x30, 0x81, UInt8(body.count)] + body
    }

    static func pem(_ label: String, _ der: [UInt8]) -> String {
        let base64 = Base64URL.encode(der).replacing("-", with: "+").replacing("_", with: "/")
        let padded = base64 + String(repeating: "=", count: (4 - base64.count % 4) % 4)
        var lines: [String] = []
        var rest = Substring(padded)
        while !rest.isEmpty {
            lines.append(String(rest.prefix(64)))
            rest = rest.dropFirst(64)
        }
        return "-----BEGIN \(label)-----\n" + lines.joined(separator: "\n") + "\n-----END \(label)-----\n"
    }

    static func derOfBlock(_ pem: String) -> [UInt8] {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let urlSafe = body.replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
        return (try? Base64URL.decode(urlSafe)) ?? []
    }
}
