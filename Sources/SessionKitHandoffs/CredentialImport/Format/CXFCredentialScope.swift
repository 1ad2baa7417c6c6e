/// Where an item's credentials apply (CXF `CredentialScope`): web sites and Android apps
/// (`androidApps`, each with `bundleId`, `name` and `certificate` = `{fingerprint, hashAlg}`).
public struct CXFCredentialScope: Sendable, Hashable {
    /// An Android app the credentials were validated for.
    public struct AndroidApp: Sendable, Hashable {
        /// The application identifier, such as `com.example.app`.
        public var bundleID: String
        /// The app's name, if the exporter kept it.
        public var name: String?
        /// The signing certificate's fingerprint (base64url), if known.
        public var certificateFingerprint: String?
        /// The fingerprint's hash algorithm (the format's `hashAlg`: `sha256`, `sha1`, or another
        /// name), if known.
        public var certificateHashAlgorithm: String?

        /// Creates an app entry.
        public init(bundleID: String, name: String? = nil, certificateFingerprint: String? = nil, certificateHashAlgorithm: String? = nil) {
            self.bundleID = bundleID
            self.name = name
            self.certificateFingerprint = certificateFingerprint
            self.certificateHashAlgorithm = certificateHashAlgorithm
        }
    }

    /// URLs (RFC 3986 syntax) the credentials are meant for.
    public var urls: [String]
    /// Android apps the credentials are meant for.
    public var androidApps: [AndroidApp]

    /// Creates a scope.
    public init(urls: [String], androidApps: [AndroidApp] = []) {
        self.urls = urls
        self.androidApps = androidApps
    }
}
