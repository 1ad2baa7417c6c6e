import Foundation
import SessionKitCore
import SessionKitTesting
import Testing

@testable import SessionKit

/// The client registration as one item of a keyring-like store (what the Keychain and the Secret
/// Service stores are made of), over an in-memory item: the decisions the platform glue relies on.
struct StoredItemRegistrationStoreTests {
    /// One item's bytes, with the calls made to it.
    final class Item: Sendable {
        let bytes = Locked<[UInt8]?>(nil)
        let writes = Locked(0)

        var store: StoredItemRegistrationStore {
            StoredItemRegistrationStore(
                read: { () throws(CredentialStoreError) in self.bytes.withLock { $0 } },
                write: { (bytes) throws(CredentialStoreError) in
                    self.writes.withLock { $0 += 1 }
                    self.bytes.withLock { $0 = bytes }
                },
                remove: { () throws(CredentialStoreError) in self.bytes.withLock { $0 = nil } })
        }
    }

    static let registration = ClientRegistration(
        issuer: "https://sim.1pass.test", clientID: "registered-client", clientSecret: Secret("client-secret-value"),
        clientSecretExpiresAt: Date(timeIntervalSince1970: 1_900_000_000), clientIDIssuedAt: Date(timeIntervalSince1970: 1_800_000_000),
        registrationAccessToken: Secret("registration-token-value"),
        registrationClientURI: URL(string: "https://sim.1pass.test/oauth/register/registered-client"),
        tokenEndpointAuthMethod: .clientSecretBasic, redirectURIs: [URL(string: "com.example.app://oauth/callback")!])

    @Test func aMissingItemIsNoRegistrationAndARegistrationRoundTrips() async throws {
        let item = Item()
        #expect(try await item.store.loadRegistration() == nil)
        try await item.store.saveRegistration(Self.registration)
        #expect(try await item.store.loadRegistration() == Self.registration)
        #expect(item.writes.withLock { $0 } == 1, "one write replaces the item")
    }

    @Test func theItemHoldsTheFramedRegistrationOfTheFileStore() async throws {
        let item = Item()
        try await item.store.saveRegistration(Self.registration)
        let bytes = try #require(item.bytes.withLock { $0 })
        #expect(bytes.starts(with: StoreEnvelope.magic + Array("CREG".utf8)))
        #expect(try StoredPayloadCodec.openRegistration(bytes) == Self.registration)
        // The file store's `registration` file holds the same bytes.
        #expect(bytes == (try StoredPayloadCodec.seal(Self.registration)))
    }

    @Test func removingForgetsItAndRemovingAMissingItemSucceeds() async throws {
        let item = Item()
        try await item.store.saveRegistration(Self.registration)
        try await item.store.removeRegistration()
        #expect(try await item.store.loadRegistration() == nil)
        try await item.store.removeRegistration()
        #expect(item.bytes.withLock { $0 } == nil)
    }

    @Test func aDamagedItemIsATypedErrorAndIsLeftAsItIs() async throws {
        let item = Item()
        try await item.store.saveRegistration(Self.registration)
        var damaged = try #require(item.bytes.withLock { $0 })
        damaged[damaged.count - 40] ^= 0xFF
        item.bytes.withLock { $0 = damaged }
        await #expect(throws: CredentialStoreError.self) { try await item.store.loadRegistration() }
        #expect(item.bytes.withLock { $0 } == damaged, "a read never rewrites what it cannot read")
        // Another kind of record in the item is refused the same way.
        item.bytes.withLock { $0 = try? StoredPayloadCodec.seal(GuestCredential(deviceID: "d", deviceSecret: Secret("g"))) }
        await #expect(throws: CredentialStoreError.self) { try await item.store.loadRegistration() }
    }

    @Test func aStoreFailureReachesTheRegistrarAsAStorageError() async throws {
        let failing = StoredItemRegistrationStore(
            read: { () throws(CredentialStoreError) in throw .locked("before the first unlock") },
            write: { (_) throws(CredentialStoreError) in throw .noSpace },
            remove: { () throws(CredentialStoreError) in throw .permissionDenied("denied") })
        let clock = TestClock()
        let provider = try SimulatedProvider(
            configuration: SimulatedProviderConfiguration(), clock: clock, now: { clock.wallClockNow() },
            signingKeys: SimulatedProviderKeys.shared(count: 1))
        let redirect = URL(string: "com.example.app://oauth/callback")!
        let discovered = try await ProviderConfiguration.discover(
            issuer: SimulatedProviderConfiguration().issuer.absoluteString, clientID: "", redirectURI: redirect, transport: provider)
        let registrar = ClientRegistrar(
            provider: discovered, metadata: ClientMetadata(redirectURIs: [redirect]), store: failing, transport: provider,
            now: { clock.wallClockNow() })
        do {
            _ = try await registrar.currentRegistration()
            Issue.record("a registration was used although the store could not be read")
        } catch {
            #expect(error.code == .storage)
        }
        #expect(provider.requestCount(for: .registration) == 0, "nothing is registered while the stored one cannot be read")
    }

    @Test func thePlatformStoreKeepsTheRegistrationWhereItKeepsTheRecord() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = PlatformCredentialStore(service: "SessionKitTests.none", directory: directory.storeURL) { "no session bus" }

        try await store.saveRegistration(Self.registration)

        #expect(try await store.loadRegistration() == Self.registration)
        #expect(try await FileCredentialStore(directory: directory.storeURL).loadRegistration() == Self.registration)
        try await store.removeRegistration()
        #expect(try await FileCredentialStore(directory: directory.storeURL).loadRegistration() == nil)
    }
}
