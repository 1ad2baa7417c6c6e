public import SessionKitCore

/// A WebAuthn passkey (CXF `passkey`).
///
/// The private key is a `Secret`; an importer must set the signature counter to zero.
public struct CXFPasskeyCredential: Sendable, Hashable {
    /// The passkey's FIDO2 extension data (CXF `Fido2Extensions`), every member optional.
    public struct Extensions: Sendable, Hashable {
        /// `hmacCredentials`: the hmac-secret (PRF) extension's credentials.
        public struct HMACCredentials: Sendable, Hashable {
            /// The algorithm, such as `hmac-sha256`.
            public var algorithm: String
            /// `credWithUV`: the credential used with user verification (base64url).
            public var credentialWithUV: Secret
            /// `credWithoutUV`: the credential used without user verification (base64url).
            public var credentialWithoutUV: Secret

            /// Creates the hmac-secret credentials.
            public init(algorithm: String, credentialWithUV: Secret, credentialWithoutUV: Secret) {
                self.algorithm = algorithm
                self.credentialWithUV = credentialWithUV
                self.credentialWithoutUV = credentialWithoutUV
            }
        }

        /// `largeBlob`: the large-blob extension's data.
        public struct LargeBlob: Sendable, Hashable {
            /// `uncompressedSize`: the blob's size before compression.
            public var uncompressedSize: UInt64
            /// `data`: the compressed blob (base64url).
            public var data: Secret

            /// Creates a large blob.
            public init(uncompressedSize: UInt64, data: Secret) {
                self.uncompressedSize = uncompressedSize
                self.data = data
            }
        }

        /// `hmacCredentials`, if present.
        public var hmacCredentials: HMACCredentials?
        /// `credBlob` (base64url), if present.
        public var credentialBlob: Secret?
        /// `largeBlob`, if present.
        public var largeBlob: LargeBlob?
        /// `payments`: whether the passkey may be used for payments, if stated.
        public var payments: Bool?

        /// Creates extension data.
        public init(
            hmacCredentials: HMACCredentials? = nil, credentialBlob: Secret? = nil, largeBlob: LargeBlob? = nil, payments: Bool? = nil
        ) {
            self.hmacCredentials = hmacCredentials
            self.credentialBlob = credentialBlob
            self.largeBlob = largeBlob
            self.payments = payments
        }
    }

    /// The WebAuthn credential id (base64url).
    public var credentialID: String
    /// The relying party id the passkey belongs to.
    public var relyingPartyID: String
    /// The account's name at the relying party.
    public var username: String
    /// The account's display name.
    public var userDisplayName: String
    /// The WebAuthn user handle (base64url).
    public var userHandle: String
    /// The private key: PKCS#8 DER, base64url-encoded.
    public var key: Secret
    /// The `fido2Extensions` member, when present.
    public var fido2Extensions: Extensions?

    /// Creates a passkey.
    public init(
        credentialID: String, relyingPartyID: String, username: String, userDisplayName: String, userHandle: String, key: Secret,
        fido2Extensions: Extensions? = nil
    ) {
        self.credentialID = credentialID
        self.relyingPartyID = relyingPartyID
        self.username = username
        self.userDisplayName = userDisplayName
        self.userHandle = userHandle
        self.key = key
        self.fido2Extensions = fido2Extensions
    }
}
