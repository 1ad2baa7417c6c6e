public import SessionKitCore

/// The DPoP key (RFC 9449) a stored session's tokens are bound to, as the credential record keeps
/// it: where the private key lives, its public half and its RFC 7638 thumbprint.
///
/// A key kept in the record (``Placement/record``) carries its private scalar here, inside the
/// same sealed, protected record as the refresh token it guards. A key held by the platform (the
/// Secure Enclave, the Keychain) carries only a reference: the private key never leaves it. At
/// restore the key is found again and its thumbprint compared with ``thumbprint``; a key that is
/// gone or does not match is an outcome the app sees (``DPoPKeyLoss``), never a request signed
/// with another key. No rendering shows the scalar or the reference.
public struct StoredDPoPKey: Sendable, Hashable, Codable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Where the private key lives.
    public struct Placement: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The stable name written to the store.
        public let rawValue: String

        /// In the credential record itself, beside the refresh token (a software key).
        public static let record = Placement(rawValue: "record")
        /// In the Secure Enclave; the record keeps a reference.
        public static let secureEnclave = Placement(rawValue: "secure-enclave")
        /// In the Keychain as a key item; the record keeps a reference.
        public static let keychain = Placement(rawValue: "keychain")

        /// A placement by its stored name; an unknown name is kept as it is (written by a later
        /// version) and no key store of this build will claim it.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Decodes the stored name.
        public init(from decoder: any Decoder) throws {
            self.rawValue = try decoder.singleValueContainer().decode(String.self)
        }

        /// Encodes the stored name.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        /// The stored name.
        public var description: String { rawValue }
    }

    /// Where the private key lives.
    public var placement: Placement
    /// The key's RFC 7638 thumbprint: the `jkt` the provider bound the code and the tokens to.
    public var thumbprint: String
    /// The public key's `x` coordinate, base64url.
    public var x: String
    /// The public key's `y` coordinate, base64url.
    public var y: String
    /// The private scalar `d`, base64url, for a key kept in the record; `nil` otherwise.
    public var privateScalar: Secret?
    /// The platform's reference to a key it holds (an application tag); `nil` for a record key.
    public var reference: Secret?
    /// Whether the provider issued the session's access tokens as DPoP-bound (`token_type`
    /// `DPoP`) at sign-in: a later refresh answered with `Bearer` is then a downgrade the session
    /// refuses (``DPoPFailure/Code/downgraded``).
    public var tokensAreBound: Bool

    /// A stored key.
    public init(
        placement: Placement, thumbprint: String, x: String, y: String, privateScalar: Secret? = nil, reference: Secret? = nil,
        tokensAreBound: Bool = false
    ) {
        self.placement = placement
        self.thumbprint = thumbprint
        self.x = x
        self.y = y
        self.privateScalar = privateScalar
        self.reference = reference
        self.tokensAreBound = tokensAreBound
    }

    /// The placement and thumbprint only: never the scalar, never the reference.
    public var description: String { "StoredDPoPKey(\(placement), jkt \(thumbprint))" }
    /// As ``description``.
    public var debugDescription: String { description }
    /// The placement and thumbprint only, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(self, children: ["placement": placement, "thumbprint": thumbprint], displayStyle: .struct)
    }
}
