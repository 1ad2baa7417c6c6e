#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension SystemCallError {
    /// The system's text for the error number, e.g. "No space left on device".
    package var systemMessage: String {
        String(cString: strerror(code))
    }

    /// "`call` `subject`: system message" — names the file, never its content.
    package func message(for subject: String) -> String {
        "\(call) \(subject): \(systemMessage)"
    }

    /// The store error an app can act on: permissions and full disks get their own cases.
    package func storeError(for subject: String) -> CredentialStoreError {
        switch code {
        case EACCES, EPERM, EROFS:
            return .permissionDenied(message(for: subject))
        case ENOSPC, EDQUOT:
            return .noSpace
        default:
            return .ioFailure(message(for: subject))
        }
    }
}
