import Foundation
import SessionKit
import SessionKitHandoffs
import SessionKitTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// What the documentation's snippets take as given: the values an app has at hand where a snippet
// would sit in it. The snippets themselves are extracted from the README and the DocC articles at
// build time (Scripts/Snippets) and compiled against these; only those marked `run` execute.

/// The app's sign-in presenter (the README's platform table says which one).
let presenter: any HandoffPresenter = LoopbackPresenter()

/// The app's provider profile.
let provider: ProviderConfiguration = {
    do {
        return try .onePass(clientID: "snippets", redirectURI: URL(string: "com.example.app://oauth/callback")!)
    } catch {
        preconditionFailure("the 1pass.dev profile with a custom-scheme redirect URI is valid")
    }
}()

/// The app's own request to its API.
@MainActor var request = URLRequest(url: URL(string: "https://api.example.com/me")!)

/// The app's own API client.
struct AppAPI {
    /// Sends `request` with `token` as its bearer token; answers the HTTP status.
    func status(of request: URLRequest, bearer token: AccessToken) async throws -> Int {
        var authorized = request
        authorized.setValue("Bearer \(token.secret.value)", forHTTPHeaderField: "Authorization")
        return authorized.value(forHTTPHeaderField: "Authorization") == nil ? 500 : 200
    }
}

/// The app's API.
let api = AppAPI()

/// Whether the app is in the background (on iOS, `HighAssuranceVault.systemIsInBackground`).
let appIsInBackground: @Sendable () async -> Bool = { false }

/// A URL the app was opened with.
let url = URL(string: "com.example.app://oauth/callback?code=c&state=s")!

/// Where a command-line tool keeps its state.
let stateDirectory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("snippets")

/// The app's credential store.
let store = FileCredentialStore(directory: stateDirectory)

/// What the app has shown.
@MainActor var shown: [String] = []

/// Shows an event of the session.
@MainActor func show(_ event: SessionEvent) { shown.append("\(event)") }

// MARK: - 1Password access requests

/// The presenter that carries an access request to 1Password.
let sharePresenter: any AccessRequestPresenter = SimulatedOnePassword(clock: TestClock())

/// The reference the app's server created for this access request.
let referenceFromYourServer = "reference"

/// Uses the granted logins.
@MainActor func use(_ first: CredentialReference?, _ second: CredentialReference?, extra: [CredentialReference]) {
    shown.append("granted \([first, second].compactMap { $0 }.count) of 2, \(extra.count) extra")
}

/// Schedules the same request again.
@MainActor func retryLater() { shown.append("retry later") }

/// Tells the person what to do about an access request that did not go through.
@MainActor func show(_ policy: AccessRequestRetryPolicy) { shown.append("\(policy)") }

// MARK: - Credential-exchange import

/// The system's credential importer.
let importer: any CredentialImporter = SimulatedCredentialExporter(clock: TestClock())

/// The activity the system launched the app with.
let activity = CredentialImportActivity(activityType: "com.apple.credential-exchange", userInfo: [:])

/// Which activity carries the import token (`.system` on iOS 26 and macOS 26).
let intake = SimulatedCredentialExporter.intake

/// Saves an imported item.
@MainActor func save(_ title: String, _ scope: CXFCredentialScope?, _ credentials: [CXFCredential]) {
    shown.append("\(title): \(credentials.count) credentials")
}

/// The app's session.
let session = Session(provider: provider, presenter: presenter, store: store)

#if canImport(UIKit)
    import UIKit

    /// The app's key window.
    @MainActor var window: UIWindow { UIApplication.shared.connectedScenes.compactMap { ($0 as? UIWindowScene)?.keyWindow }.first! }
#endif
