import Foundation
import SessionKit

@testable import SessionKitSecretService

/// A store on a fresh, unique service name, with what the tests need around it.
struct KeyringFixture {
    let service = "SessionKitTests.\(UUID().uuidString)"
    let leaseDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-keyring-\(UUID().uuidString)")
    let store: SecretServiceCredentialStore

    init() {
        store = SecretServiceCredentialStore(service: service, leaseDirectory: leaseDirectory)
    }

    /// Removes both items and the lease directory, so nothing is left in the keyring.
    func remove() {
        try? SecretServiceItems.remove(store.credentials)
        try? SecretServiceItems.remove(store.device)
        try? SecretServiceItems.remove(store.guest)
        try? SecretServiceItems.remove(store.keyring.importTokenLedger)
        try? SecretServiceItems.remove(store.keyring.registration)
        try? FileManager.default.removeItem(at: leaseDirectory)
    }

    static let record = CredentialRecord(
        session: StoredSession(
            refreshToken: Secret("refresh-token-value"), pendingRefreshToken: Secret("pending-refresh-value"),
            accessToken: Secret("access-token-value"), accessTokenExpiresAt: Date(timeIntervalSince1970: 1_767_225_600.25),
            idToken: Secret("id-token-value"), issuer: "https://api.1pass.dev", subject: "user-42", audience: ["client-a", "client-b"],
            rotation: 7, canonicalSubject: "user-1", linkedSubjects: ["user-42", "user-7"], isAnonymous: false),
        pendingOperation: .signOut, pendingRevocations: [Secret("old-refresh-1")])

    static let registration = ClientRegistration(
        issuer: "https://issuer.example", clientID: "registered-client", clientSecret: Secret("client-secret-value"),
        clientSecretExpiresAt: Date(timeIntervalSince1970: 1_900_000_000), registrationAccessToken: Secret("registration-token-value"),
        registrationClientURI: URL(string: "https://issuer.example/register/registered-client"),
        tokenEndpointAuthMethod: .clientSecretBasic,
        redirectURIs: [URL(string: "com.example.app://oauth/callback")!])

    static let device = DeviceCredential(deviceUUID: "6F1A2B3C-0000-4000-8000-000000000001", deviceSecret: Secret("device-secret-value"))

    static func record(rotation: UInt64) -> CredentialRecord {
        CredentialRecord(
            session: StoredSession(
                refreshToken: Secret("refresh-\(rotation)"), issuer: "https://issuer.example", subject: "s", audience: ["c"],
                rotation: rotation))
    }

    /// Whether a Secret Service with a default collection answers here.
    static func isReachable() async -> Bool {
        await SecretServiceCredentialStore.unavailabilityReason() == nil
    }
}
