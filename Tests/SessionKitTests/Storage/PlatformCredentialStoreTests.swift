import Foundation
import SessionKitTesting
import Testing

@testable import SessionKit

/// The platform store of `Session(provider:presenter:)` where there is no Keychain: the keyring
/// when one answers, else files, with the reason on the session and in an event at launch.
struct PlatformCredentialStoreTests {
    @Test func withoutAKeyringTheRecordGoesToFilesAndTheReasonIsKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let probes = Locked(0)
        let store = PlatformCredentialStore(service: "SessionKitTests.none", directory: directory.storeURL) {
            probes.withLock { $0 += 1 }
            return "no session bus"
        }

        try await store.save(PlatformStoreFixture.record)

        #expect(await store.fallbackReason() == "no session bus")
        #expect(try await FileCredentialStore(directory: directory.storeURL).load() == PlatformStoreFixture.record)
        _ = try await store.load()
        #expect(probes.withLock { $0 } == 1, "the choice is made once")
    }

    @Test func restorePublishesTheFallbackAndTheSessionKeepsItsReason() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = PlatformCredentialStore(service: "SessionKitTests.none", directory: directory.storeURL) { "no session bus" }
        let session = try PlatformStoreFixture.session(store: store)
        let events = Locked<[SessionEvent]>([])
        session.addObserver { event in events.withLock { $0.append(event) } }

        #expect(try await session.restore() == .signedOut)

        #expect(events.withLock { $0 }.contains(.credentialStoreFallback(reason: "no session bus")))
        #expect(await session.storeFallbackReason == "no session bus")
    }

    @Test func aStoreTheAppPassesNeverReportsAFallback() async throws {
        let session = try PlatformStoreFixture.session(store: InMemoryCredentialStore())
        let events = Locked<[SessionEvent]>([])
        session.addObserver { event in events.withLock { $0.append(event) } }

        try await session.restore()

        #expect(await session.storeFallbackReason == nil)
        #expect(!events.withLock { $0 }.contains { if case .credentialStoreFallback = $0 { true } else { false } })
    }
}

/// Against a real `gnome-keyring-daemon` (Scripts/test.sh runs the suite inside a D-Bus session
/// with one): a whole session through `Session(provider:presenter:)` leaves no token in any file.
@Suite(.enabled("needs a Secret Service on the session bus") { await RuntimeSecretServiceStore.unavailabilityReason() == nil })
struct PlatformStoreKeyringTests {
    @Test func theShortInitialiserKeepsEveryTokenInTheKeyring() async throws {
        let provider = try PlatformStoreFixture.ServedProvider()
        defer { provider.stop() }
        let clientID = provider.clientID
        let directory = PlatformStoreFixture.dataDirectory(clientID: clientID)
        let keyring = RuntimeSecretServiceStore(service: "sessionkit.\(clientID)", leaseDirectory: directory)
        defer {
            try? RuntimeSecretService.remove(keyring.credentials)
            try? RuntimeSecretService.remove(keyring.device)
            try? FileManager.default.removeItem(at: directory)
        }
        let presenter = ScriptedPresenter(provider: provider.provider, behaviours: [.approve(subject: "alice")])
        let session = Session(provider: try provider.configuration(), presenter: presenter)
        let events = Locked<[SessionEvent]>([])
        session.addObserver { event in events.withLock { $0.append(event) } }

        try await session.restore()
        try await session.signIn()
        let accessToken = try await session.validAccessToken().secret.value
        let refreshed = try await session.refresh().secret.value

        #expect(await session.storeFallbackReason == nil)
        #expect(!events.withLock { $0 }.contains { if case .credentialStoreFallback = $0 { true } else { false } })
        let stored = try #require(try await keyring.load().session, "the session is in the keyring")
        let secrets = [accessToken, refreshed, try #require(stored.refreshToken?.value), try #require(stored.idToken?.value)]
        let base = PlatformStoreFixture.dataBase()
        for secret in secrets {
            #expect(PlatformStoreFixture.files(under: base, containing: secret).isEmpty, "a token in a file under \(base.path)")
        }

        try await session.signOut()
        #expect(try await keyring.load() == CredentialRecord(), "sign-out wipes the keyring item")
    }
}

/// Where no Secret Service answers (plain `swift test`, or the test script's headless step).
@Suite(.enabled("runs where no Secret Service answers") { await RuntimeSecretServiceStore.unavailabilityReason() != nil })
struct PlatformStoreHeadlessTests {
    @Test func theShortInitialiserFallsBackToFilesAndReportsItAtLaunch() async throws {
        let clientID = "headless-\(UUID().uuidString)"
        let directory = PlatformStoreFixture.dataDirectory(clientID: clientID)
        defer { try? FileManager.default.removeItem(at: directory) }
        let provider = try ProviderConfiguration.onePass(
            clientID: clientID, redirectURI: URL(string: "com.example.app://oauth/callback")!)
        let session = Session(provider: provider, presenter: ScriptedPresenter(authorize: { url, _, _ in url }))
        let events = Locked<[SessionEvent]>([])
        session.addObserver { event in events.withLock { $0.append(event) } }

        try await session.restore()

        let reason = try #require(await session.storeFallbackReason)
        #expect(!reason.isEmpty)
        let fallbacks = events.withLock { $0 }.filter { if case .credentialStoreFallback = $0 { true } else { false } }
        #expect(fallbacks == [.credentialStoreFallback(reason: reason)], "reported once, at launch")
        #expect(events.withLock { $0 }.first == .credentialStoreFallback(reason: reason), "before the stage restored into")
        let store = try #require(session.store as? PlatformCredentialStore)
        guard case .files(let files, _) = await store.choice() else {
            Issue.record("the platform store did not fall back to files")
            return
        }
        #expect(files.directory == directory)
    }
}
