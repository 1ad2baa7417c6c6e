extension CredentialStoreError {
    /// A stable identifier: `corrupted`, `unsupported_schema_version`, `permission_denied` …
    public var code: String {
        switch self {
        case .corrupted: "corrupted"
        case .unsupportedSchemaVersion: "unsupported_schema_version"
        case .permissionDenied: "permission_denied"
        case .noSpace: "no_space"
        case .ioFailure: "io_failure"
        case .leaseUnavailable: "lease_unavailable"
        case .locked: "locked"
        }
    }
}
