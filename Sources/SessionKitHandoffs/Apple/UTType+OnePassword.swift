#if canImport(UniformTypeIdentifiers)
    public import UniformTypeIdentifiers

    // Apple-only glue, not compiled on Linux. The identifiers and their meaning live in
    // cross-platform code (`AccessRequest`, `AccessGrant`).
    extension UTType {
        /// `com.1password.access-request`: the JSON an app shares to ask 1Password for access.
        ///
        /// Imported (1Password owns it) and conforming to `public.json`; the app's Info.plist must
        /// declare it under `UTImportedTypeDeclarations`.
        public static let onePasswordAccessRequest = UTType(importedAs: AccessRequest.typeIdentifier, conformingTo: .json)

        /// `com.1password.access-grant`: the JSON 1Password returns.
        public static let onePasswordAccessGrant = UTType(importedAs: AccessGrant.typeIdentifier, conformingTo: .json)
    }
#endif
