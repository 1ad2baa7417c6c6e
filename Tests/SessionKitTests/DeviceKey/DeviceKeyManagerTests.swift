import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

@Suite("Device key manager", .timeLimit(.minutes(1)))
struct DeviceKeyManagerTests {
    /// A signed-in user on a simulated provider, and a manager wired to it.
    struct Setup {
        let fixture: ProviderFixture
        let tokens: ProviderFixture.Tokens
        let store: MemoryDeviceStore
        let uuids = SequentialUUIDs()

        init(subject: String = "alice", store: MemoryDeviceStore = MemoryDeviceStore()) async throws {
            fixture = try ProviderFixture()
            tokens = try await fixture.signIn(subject: subject)
            self.store = store
        }

        var accessToken: Secret { tokens.accessToken }

        func manager(store: MemoryDeviceStore? = nil, uuid: (@Sendable () -> String)? = nil) -> DeviceKeyManager {
            let clock = fixture.clock
            let uuids = uuids
            return DeviceKeyManager(
                endpoint: fixture.url(.deviceKeyExchange), platform: "ios", transport: fixture.provider,
                store: store ?? self.store, now: { clock.wallClockNow() }, makeDeviceUUID: uuid ?? { uuids.next() })
        }

        var exchangeStatuses: [Int?] {
            fixture.provider.requestLog.filter { $0.endpoint == .deviceKeyExchange }.map(\.status)
        }
    }

    @Test func firstCallBootstrapsAndStoresUUIDThenSecret() async throws {
        let setup = try await Setup()
        let manager = setup.manager()
        let key = try await manager.deviceKey(accessToken: setup.accessToken)
        let stored = try #require(await setup.store.device)
        #expect(stored.deviceUUID == "device-1")
        #expect(stored.deviceSecret != nil)
        #expect(await setup.store.saveCount == 2)
        #expect(setup.fixture.provider.deviceOwner(deviceUUID: "device-1") == "alice")
        #expect(key.expiresAt == setup.fixture.clock.wallClockNow().addingTimeInterval(3600))
        // The key is what the provider accepts for disconnect.
        #expect(try await setup.fixture.disconnect(deviceKey: key.value).status == 204)
    }

    @Test func aFreshKeyIsServedFromTheCache() async throws {
        let setup = try await Setup()
        let manager = setup.manager()
        let first = try await manager.deviceKey(accessToken: setup.accessToken)
        let second = try await manager.deviceKey(accessToken: setup.accessToken)
        #expect(first == second)
        #expect(manager.exchangeCount == 1)
        #expect(setup.fixture.provider.requestCount(for: .deviceKeyExchange) == 1)
    }

    @Test func aKeyNearItsExpiryIsReplacedWithoutRewritingTheStore() async throws {
        let setup = try await Setup()
        let manager = setup.manager()
        let first = try await manager.deviceKey(accessToken: setup.accessToken)
        setup.fixture.clock.advance(by: .seconds(3540))
        let tokens = try ProviderFixture.tokens(try await setup.fixture.refresh(setup.tokens.refreshToken))
        let second = try await manager.deviceKey(accessToken: tokens.accessToken)
        #expect(second != first)
        #expect(manager.exchangeCount == 2)
        #expect(setup.exchangeStatuses == [200, 200])
        // The secret was presented, so none came back and nothing was written again.
        #expect(await setup.store.saveCount == 2)
    }

    @Test func concurrentCallersShareOneExchange() async throws {
        let setup = try await Setup()
        let manager = setup.manager()
        setup.fixture.provider.script(.slow(.seconds(2)), on: .deviceKeyExchange)
        let callers = 200
        let keys = await withTaskGroup(of: DeviceKeyManager.DeviceKey?.self) { group in
            for _ in 0..<callers {
                group.addTask { try? await manager.deviceKey(accessToken: setup.accessToken) }
            }
            await setup.fixture.clock.waitForSleepers(count: 1)
            await waitUntil(manager.changes) { manager.waitingCallerCount == callers }
            setup.fixture.clock.advance(by: .seconds(2))
            var keys: [DeviceKeyManager.DeviceKey?] = []
            for await key in group { keys.append(key) }
            return keys
        }
        #expect(keys.count == callers)
        #expect(Set(keys.compactMap { $0?.value }).count == 1)
        #expect(keys.allSatisfy { $0 != nil })
        #expect(setup.fixture.provider.requestCount(for: .deviceKeyExchange) == 1)
        #expect(manager.exchangeCount == 1)
    }

    @Test func oneCallersCancellationRemovesOnlyThatCaller() async throws {
        let setup = try await Setup()
        let manager = setup.manager()
        setup.fixture.provider.script(.slow(.seconds(2)), on: .deviceKeyExchange)
        let accessToken = setup.accessToken
        func call() -> Task<Result<DeviceKeyManager.DeviceKey, DeviceKeyManager.ExchangeError>, Never> {
            Task {
                do throws(DeviceKeyManager.ExchangeError) {
                    return .success(try await manager.deviceKey(accessToken: accessToken))
                } catch {
                    return .failure(error)
                }
            }
        }
        let staying = call()
        let leaving = call()
        let alsoStaying = call()
        await setup.fixture.clock.waitForSleepers(count: 1)
        await waitUntil(manager.changes) { manager.waitingCallerCount == 3 }
        leaving.cancel()
        #expect(await leaving.value == .failure(.cancelled))
        #expect(manager.waitingCallerCount == 2)
        setup.fixture.clock.advance(by: .seconds(2))
        let first = try await staying.value.get()
        let second = try await alsoStaying.value.get()
        #expect(first == second)
        #expect(setup.fixture.provider.requestCount(for: .deviceKeyExchange) == 1)
        // The exchange finished for the others, so its result is cached.
        #expect(try await manager.deviceKey(accessToken: accessToken) == first)
    }

    @Test func invalidSecretDropsItAndBootstrapsOnce() async throws {
        let setup = try await Setup()
        _ = try await setup.manager().deviceKey(accessToken: setup.accessToken)
        let oldSecret = try #require(await setup.store.device?.deviceSecret)
        #expect(setup.fixture.provider.invalidateDeviceSecret(deviceUUID: "device-1"))

        // A new process: nothing cached, the credential comes from the store.
        let manager = setup.manager()
        let key = try await manager.deviceKey(accessToken: setup.accessToken)
        #expect(setup.exchangeStatuses == [200, 401, 200])
        let stored = try #require(await setup.store.device)
        #expect(stored.deviceUUID == "device-1")
        #expect(stored.deviceSecret != nil)
        #expect(stored.deviceSecret != oldSecret)
        #expect(manager.exchangeCount == 1)
        #expect(try await setup.fixture.disconnect(deviceKey: key.value).status == 204)
    }

    @Test func aSecretForADeviceTheProviderNeverSawIsReplaced() async throws {
        let store = MemoryDeviceStore(DeviceCredential(deviceUUID: "migrated", deviceSecret: Secret("from-old-install")))
        let setup = try await Setup(store: store)
        _ = try await setup.manager().deviceKey(accessToken: setup.accessToken)
        #expect(setup.exchangeStatuses == [401, 200])
        #expect(await store.device?.deviceUUID == "migrated")
        #expect(await store.device?.deviceSecret != Secret("from-old-install"))
    }

    @Test func aMigratedCredentialIsUsedAsItIs() async throws {
        let setup = try await Setup()
        _ = try await setup.manager().deviceKey(accessToken: setup.accessToken)
        let migrated = try #require(await setup.store.device)
        let otherStore = MemoryDeviceStore(migrated)
        let manager = setup.manager(store: otherStore)
        _ = try await manager.deviceKey(accessToken: setup.accessToken)
        #expect(setup.exchangeStatuses == [200, 200])
        #expect(await otherStore.saveCount == 0)
        #expect(await otherStore.device == migrated)
    }

    @Test func aSecondInvalidSecretIsATypedError() async throws {
        let rejection = ScriptedTransport.json(401, #"{"error":"invalid_device_secret"}"#)
        let transport = ScriptedTransport([rejection, rejection])
        let store = MemoryDeviceStore(DeviceCredential(deviceUUID: "d-1", deviceSecret: Secret("s-1")))
        let manager = DeviceKeyManager(
            endpoint: URL(string: "https://sim.1pass.test/api/v1/me/device_keys/exchange")!, platform: "ios",
            transport: transport, store: store, now: { Date(timeIntervalSince1970: 0) })
        await #expect(throws: DeviceKeyManager.ExchangeError.invalidDeviceSecret) {
            try await manager.deviceKey(accessToken: Secret("at"))
        }
        #expect(transport.requests.count == 2)
        #expect(await store.device == DeviceCredential(deviceUUID: "d-1", deviceSecret: nil))
    }

    @Test func aDeviceOfAnotherAccountIsAConflict() async throws {
        let setup = try await Setup()
        _ = try await setup.manager(uuid: { "shared-device" }).deviceKey(accessToken: setup.accessToken)
        let bob = try await setup.fixture.signIn(subject: "bob")
        let bobStore = MemoryDeviceStore()
        let manager = setup.manager(store: bobStore, uuid: { "shared-device" })
        await #expect(throws: DeviceKeyManager.ExchangeError.deviceConflict) {
            try await manager.deviceKey(accessToken: bob.accessToken)
        }
        #expect(setup.fixture.provider.deviceOwner(deviceUUID: "shared-device") == "alice")
        #expect(await bobStore.device == DeviceCredential(deviceUUID: "shared-device"))
    }

    @Test func aRevokedAccessTokenIsRejected() async throws {
        let setup = try await Setup()
        _ = try await setup.fixture.revoke(setup.tokens.refreshToken)
        let manager = setup.manager()
        await #expect(throws: DeviceKeyManager.ExchangeError.accessTokenRejected) {
            try await manager.deviceKey(accessToken: setup.accessToken)
        }
    }

    @Test func transientFailuresAreTypedAndNotSticky() async throws {
        let setup = try await Setup()
        let manager = setup.manager()
        setup.fixture.provider.script(.serverError(status: 503, retryAfterSeconds: 5), on: .deviceKeyExchange)
        setup.fixture.provider.script(.rateLimited(retryAfterSeconds: 30), on: .deviceKeyExchange)
        setup.fixture.provider.script(.connectionFailure, on: .deviceKeyExchange)
        setup.fixture.provider.script(.malformedJSON, on: .deviceKeyExchange)
        var errors: [DeviceKeyManager.ExchangeError] = []
        for _ in 0..<4 {
            do {
                _ = try await manager.deviceKey(accessToken: setup.accessToken)
            } catch {
                errors.append(error)
            }
        }
        #expect(
            errors == [
                .unavailable(status: 503, retryAfter: .seconds(5)), .unavailable(status: 429, retryAfter: .seconds(30)),
                .transport(.connectionFailed("simulated connection failure")), .malformedResponse,
            ])
        #expect(errors.map(\.isTransient) == [true, true, true, false])
        _ = try await manager.deviceKey(accessToken: setup.accessToken)
        #expect(manager.exchangeCount == 5)
    }

    @Test func aUUIDThatCannotBeStoredIsNeverSent() async throws {
        let setup = try await Setup()
        let manager = setup.manager()
        await setup.store.failNextSave(with: .noSpace)
        await #expect(throws: DeviceKeyManager.ExchangeError.storage(.noSpace)) {
            try await manager.deviceKey(accessToken: setup.accessToken)
        }
        #expect(await setup.store.device == nil)
        #expect(setup.fixture.provider.requestCount(for: .deviceKeyExchange) == 0)
        // Failures are not sticky: the next call bootstraps.
        _ = try await manager.deviceKey(accessToken: setup.accessToken)
        #expect(await setup.store.device?.deviceSecret != nil)
    }

    @Test func aSecretThatCannotBeStoredIsNotUsed() async throws {
        let store = MemoryDeviceStore(DeviceCredential(deviceUUID: "device-9"))
        let setup = try await Setup(store: store)
        let manager = setup.manager()
        await store.failNextSave(with: .ioFailure("disk"))
        await #expect(throws: DeviceKeyManager.ExchangeError.storage(.ioFailure("disk"))) {
            try await manager.deviceKey(accessToken: setup.accessToken)
        }
        // The key was not handed out, and the uuid is kept for the next attempt.
        #expect(manager.exchangeCount == 1)
        #expect(await store.device == DeviceCredential(deviceUUID: "device-9"))
        _ = try await manager.deviceKey(accessToken: setup.accessToken)
        #expect(await store.device?.deviceSecret != nil)
        #expect(setup.exchangeStatuses == [200, 200])
    }

    @Test func resetForgetsTheDeviceAndTheCachedKey() async throws {
        let setup = try await Setup()
        let manager = setup.manager()
        _ = try await manager.deviceKey(accessToken: setup.accessToken)
        try await manager.reset()
        #expect(await setup.store.device == nil)
        #expect(await setup.store.removeCount == 1)
        _ = try await manager.deviceKey(accessToken: setup.accessToken)
        #expect(await setup.store.device?.deviceUUID == "device-2")
        #expect(manager.exchangeCount == 2)
        #expect(setup.fixture.provider.registeredDeviceCount == 2)
    }

    @Test func resetDuringAnExchangeCancelsItsCallersAndWritesNothing() async throws {
        let setup = try await Setup()
        let manager = setup.manager()
        setup.fixture.provider.script(.slow(.seconds(2)), on: .deviceKeyExchange)
        let accessToken = setup.accessToken
        let caller = Task { () -> Result<DeviceKeyManager.DeviceKey, DeviceKeyManager.ExchangeError> in
            do throws(DeviceKeyManager.ExchangeError) {
                return .success(try await manager.deviceKey(accessToken: accessToken))
            } catch {
                return .failure(error)
            }
        }
        await setup.fixture.clock.waitForSleepers(count: 1)
        await waitUntil(manager.changes) { manager.waitingCallerCount == 1 }
        let reset = Task { try await manager.reset() }
        #expect(await caller.value == .failure(.cancelled))
        setup.fixture.clock.advance(by: .seconds(2))
        try await reset.value
        #expect(await setup.store.device == nil)
        #expect(manager.waitingCallerCount == 0)
        // The secret the provider issued meanwhile was never stored.
        #expect(await setup.store.saveCount == 1)
    }

    @Test func theRequestCarriesBearerUUIDPlatformAndTheSecretOnceKnown() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.json(200, #"{"device_key":"k1","expires_in":600,"device_secret":"s1"}"#),
            ScriptedTransport.json(200, #"{"device_key":"k2","expires_in":600}"#),
        ])
        let store = MemoryDeviceStore()
        let endpoint = URL(string: "https://api.1pass.test/api/v1/me/device_keys/exchange")!
        let manager = DeviceKeyManager(
            endpoint: endpoint, platform: "macos", transport: transport, store: store,
            now: { Date(timeIntervalSince1970: 1000) }, makeDeviceUUID: { "uuid-1" })
        let first = try await manager.deviceKey(accessToken: Secret("at-1"))
        manager.discardCachedKey()
        let second = try await manager.deviceKey(accessToken: Secret("at-2"))
        #expect(first.value == Secret("k1"))
        #expect(first.expiresAt == Date(timeIntervalSince1970: 1600))
        #expect(second.value == Secret("k2"))
        #expect(await store.device == DeviceCredential(deviceUUID: "uuid-1", deviceSecret: Secret("s1")))

        let requests = transport.requests
        #expect(requests.map(\.method) == ["POST", "POST"])
        #expect(requests.map(\.url) == [endpoint, endpoint])
        #expect(requests.map { $0.header("authorization") } == ["Bearer at-1", "Bearer at-2"])
        #expect(requests.map { $0.header("content-type") } == ["application/json", "application/json"])
        let bodies = try requests.map { try #require(try JSONSerialization.jsonObject(with: $0.body ?? Data()) as? [String: String]) }
        #expect(
            bodies == [
                ["device_uuid": "uuid-1", "platform": "macos"],
                ["device_uuid": "uuid-1", "platform": "macos", "device_secret": "s1"],
            ])
    }

    @Test func malformedSuccessBodiesAreRejected() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.json(200, #"{"device_key":"","expires_in":600}"#),
            ScriptedTransport.json(200, #"{"device_key":"k","expires_in":"600"}"#),
            ScriptedTransport.json(200, #"{"device_key":"k","expires_in":0}"#),
            ScriptedTransport.json(200, #"[1]"#),
        ])
        let manager = DeviceKeyManager(
            endpoint: URL(string: "https://x.test/e")!, platform: "ios", transport: transport, store: MemoryDeviceStore(),
            now: { Date(timeIntervalSince1970: 0) })
        for _ in 0..<4 {
            await #expect(throws: DeviceKeyManager.ExchangeError.malformedResponse) {
                try await manager.deviceKey(accessToken: Secret("at"))
            }
        }
    }

    @Test func noSecretAppearsInDescriptions() async throws {
        let transport = ScriptedTransport([
            ScriptedTransport.json(200, #"{"device_key":"KEY-VALUE-123","expires_in":600,"device_secret":"SECRET-456"}"#)
        ])
        let store = MemoryDeviceStore()
        let manager = DeviceKeyManager(
            endpoint: URL(string: "https://x.test/e")!, platform: "ios", transport: transport, store: store,
            now: { Date(timeIntervalSince1970: 0) })
        let key = try await manager.deviceKey(accessToken: Secret("ACCESS-789"))
        let credential = try #require(await store.device)
        let texts =
            [
                String(describing: key), String(reflecting: key), String(describing: credential),
                String(reflecting: credential),
            ]
            + [DeviceKeyManager.ExchangeError.invalidDeviceSecret, .transport(.timedOut), .storage(.noSpace)].map(String.init(describing:))
        for text in texts {
            #expect(!text.contains("KEY-VALUE-123"))
            #expect(!text.contains("SECRET-456"))
            #expect(!text.contains("ACCESS-789"))
        }
    }
}
