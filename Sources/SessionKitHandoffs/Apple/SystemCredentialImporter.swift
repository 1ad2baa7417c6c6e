#if canImport(AuthenticationServices)
    import AuthenticationServices
    public import Foundation
    public import SessionKitCore

    // Apple-only glue, not compiled on Linux: single use, version checks and decoding are done by
    // `CredentialImportCoordinator` and `CXFDocument.decode`, which run everywhere.

    /// The system's credential import: `ASCredentialImportManager.importCredentials(token:)`, its
    /// result re-encoded as Credential Exchange Format JSON (Apple's `Codable` form of
    /// `ASExportedCredentialData` is the CXF structure) for the cross-platform decoder.
    ///
    /// The encoder is ``CXFJSONEncoding/makeEncoder()``: UNIX-seconds dates, as Apple documents
    /// for these types, and base64url data; its output is checked on Linux against fixtures.
    @available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
    public struct SystemCredentialImporter: CredentialImporter {
        /// Creates the importer.
        public init() {}

        /// Imports with `token`; errors are reported by domain and code only.
        public func importCredentials(token: CredentialImportToken) async throws(CredentialImporterError) -> CredentialExchangePayload {
            do {
                let data = try await ASCredentialImportManager().importCredentials(token: token.uuid)
                return CredentialExchangePayload([UInt8](try CXFJSONEncoding.makeEncoder().encode(data)))
            } catch is CancellationError {
                throw .cancelled
            } catch {
                let bridged = error as NSError
                throw .failed("\(bridged.domain) \(bridged.code)")
            }
        }
    }

    @available(iOS 26.0, macOS 26.0, visionOS 26.0, *)
    extension CredentialImportIntake {
        /// The system's credential-exchange activity: type `ASCredentialExchangeActivity`, token
        /// under `ASCredentialImportToken`.
        public static var system: CredentialImportIntake {
            CredentialImportIntake(activityType: ASCredentialExchangeActivity, tokenKey: ASCredentialImportToken)
        }
    }

    extension CredentialImportActivity {
        /// The parts of `activity` the intake reads: its type and its `userInfo` values.
        public init(_ activity: NSUserActivity) {
            var userInfo: [String: Value] = [:]
            for (key, value) in activity.userInfo ?? [:] {
                guard let key = key as? String else { continue }
                switch value {
                case let uuid as UUID: userInfo[key] = .uuid(uuid)
                case let text as String: userInfo[key] = .string(text)
                default: userInfo[key] = .other
                }
            }
            self.init(activityType: activity.activityType, userInfo: userInfo)
        }
    }
#endif
