import Foundation
import SessionKit
import SessionKitTesting
import Testing

@Suite("Guest bootstrapper", .timeLimit(.minutes(1)))
struct GuestBootstrapperTests {
    /// A simulated provider, an in-memory store and a bootstrapper wired to both.
    struct Setup {
        let fixture: ProviderFixture
        let store = InMemoryCredentialStore()
        let ids = SequentialUUIDs()
        let client: ProviderClient

        init() throws {
            fixture = try ProviderFixture()
            let clock = fixture.clock
            client = ProviderClient(
                configuration: try fixture.provider.providerConfiguration(), transport: fixture.provider, now: { clock.wallClockNow() })
        }

        func bootstrapper(client: ProviderClient? = nil, name: String? = nil) -> GuestBootstrapper {
            let clock = fixture.clock
            let ids = ids
            return GuestBootstrapper(
                client: client ?? self.client, store: store, now: { clock.wallClockNow() }, deviceName: name,
                makeDeviceID: { ids.next() })
        }

        var statuses: [Int?] {
            fixture.provider.requestLog.filter { $0.endpoint == .anonymousBootstrap }.map(\.status)
        }
    }

    private static func call(_ bootstrapper: GuestBootstrapper) -> Task<Result<GuestTokens, AnonymousBootstrapError>, Never> {
        Task {
            do throws(AnonymousBootstrapError) {
                return .success(try await bootstrapper.bootstrap())
            } catch {
                return .failure(error)
            }
        }
    }

    /// A bootstrapper whose one caller waits for a bootstrap the provider holds for 2 s.
    private static func bootstrapUnderWay() async throws -> (
        Setup, GuestBootstrapper, Task<Result<GuestTokens, AnonymousBootstrapError>, Never>
    ) {
        let setup = try Setup()
        let bootstrapper = setup.bootstrapper()
        setup.fixture.provider.script(.slow(.seconds(2)), on: .anonymousBootstrap)
        let caller = call(bootstrapper)
        await setup.fixture.clock.waitForSleepers(count: 1)
        await waitUntil(bootstrapper.changes) { bootstrapper.waitingCallerCount == 1 }
        return (setup, bootstrapper, caller)
    }

    // MARK: Against the simulated provider

    @Test func theFirstBootstrapStoresTheIDThenTheSecretAndHandsOutAWorkingKey() async throws {
        let setup = try Setup()
        let tokens = try await setup.bootstrapper(name: "Ada's iPad").bootstrap()
        let stored = try #require(setup.store.guest)
        #expect(stored.deviceID == "device-1")
        #expect(stored.deviceSecret != nil)
        #expect(setup.store.count(of: .saveGuest) == 2)
        #expect(tokens.user.isAnonymous)
        #expect(tokens.user.id == "\(try #require(setup.fixture.provider.guestUserID(deviceID: "device-1")))")
        #expect(tokens.deviceID == "device-1")
        #expect(!tokens.startedOver)
        #expect(tokens.accessToken.expiresAt == setup.fixture.clock.wallClockNow().addingTimeInterval(3600))
        #expect(setup.fixture.provider.isAccessTokenActive(tokens.accessToken.secret))
        #expect(setup.fixture.provider.guestDeviceName(deviceID: "device-1") == "Ada's iPad")
        // The guest slot is apart from the session record and the device-key credential.
        #expect(setup.store.record.isEmpty)
        #expect(setup.store.device == nil)
    }

    @Test func renewalPresentsTheStoredSecretAndKeepsTheSameGuest() async throws {
        let setup = try Setup()
        let bootstrapper = setup.bootstrapper()
        let first = try await bootstrapper.bootstrap()
        setup.fixture.clock.advance(by: .seconds(3000))
        let second = try await bootstrapper.bootstrap()
        #expect(second.user == first.user)
        #expect(second.accessToken.secret != first.accessToken.secret)
        #expect(setup.store.count(of: .saveGuest) == 2)
        #expect(setup.fixture.provider.guestDeviceCount == 1)
        #expect(setup.statuses == [200, 200])
    }

    @Test func aRelaunchedBootstrapperUsesTheStoredCredential() async throws {
        let setup = try Setup()
        let first = try await setup.bootstrapper().bootstrap()
        let relaunched = try await setup.bootstrapper().bootstrap()
        #expect(relaunched.user == first.user)
        #expect(relaunched.deviceID == "device-1")
    }

    // MARK: The recovery rule

    @Test func aServerSideResetIsRecoveredWithOneFreshBootstrap() async throws {
        let setup = try Setup()
        let bootstrapper = setup.bootstrapper()
        let first = try await bootstrapper.bootstrap()
        let oldSecret = setup.store.guest?.deviceSecret
        #expect(setup.fixture.provider.forgetGuestDevice(deviceID: "device-1"))
        #expect(!setup.fixture.provider.isAccessTokenActive(first.accessToken.secret))
        let recovered = try await bootstrapper.bootstrap()
        #expect(setup.statuses == [200, 401, 200])
        #expect(recovered.startedOver)
        #expect(recovered.user != first.user)
        #expect(recovered.deviceID == "device-1")
        let stored = try #require(setup.store.guest)
        #expect(stored.deviceSecret != nil && stored.deviceSecret != oldSecret)
        #expect(setup.fixture.provider.isAccessTokenActive(recovered.accessToken.secret))
    }

    @Test func aMismatchedSecretIsRecoveredTheSameWay() async throws {
        let setup = try Setup()
        let bootstrapper = setup.bootstrapper()
        _ = try await bootstrapper.bootstrap()
        #expect(setup.fixture.provider.invalidateGuestDeviceSecret(deviceID: "device-1"))
        let recovered = try await bootstrapper.bootstrap()
        #expect(recovered.startedOver)
        #expect(setup.statuses == [200, 401, 200])
    }

    @Test func aSecondRefusalIsATypedErrorAfterExactlyOneFreshRetry() async throws {
        let setup = try Setup()
        let bootstrapper = setup.bootstrapper()
        _ = try await bootstrapper.bootstrap()
        setup.fixture.provider.script(
            .rawAnswer(status: 401, body: #"{"error":"invalid_device_secret"}"#), on: .anonymousBootstrap, times: 3)
        await #expect(throws: AnonymousBootstrapError.invalidDeviceSecret) { try await bootstrapper.bootstrap() }
        #expect(setup.statuses == [200, 401, 401])
        // The refused secret is gone; the id stays, so the next attempt is a fresh bootstrap of this device.
        #expect(setup.store.guest == GuestCredential(deviceID: "device-1"))
    }

    @Test func aTransientFailureKeepsTheCredential() async throws {
        let setup = try Setup()
        let bootstrapper = setup.bootstrapper()
        _ = try await bootstrapper.bootstrap()
        let stored = setup.store.guest
        setup.fixture.provider.script(.serverError(status: 503, retryAfterSeconds: 7), on: .anonymousBootstrap)
        await #expect(throws: AnonymousBootstrapError.unavailable(status: 503, retryAfter: .seconds(7))) {
            try await bootstrapper.bootstrap()
        }
        #expect(setup.store.guest == stored)
        #expect(AnonymousBootstrapError.unavailable(status: 503, retryAfter: nil).isTransient)
        #expect(try await bootstrapper.bootstrap().user.id == "1")
    }

    @Test func aProfileWithoutGuestBootstrapSaysSo() async throws {
        let setup = try Setup()
        var configuration = setup.client.configuration
        configuration.anonymousBootstrap = nil
        let client = ProviderClient(
            configuration: configuration, transport: setup.fixture.provider, now: { Date(timeIntervalSince1970: 0) })
        await #expect(throws: AnonymousBootstrapError.notConfigured) { try await setup.bootstrapper(client: client).bootstrap() }
        #expect(setup.statuses.isEmpty)
    }

    @Test func theBootstrapRunsUnderTheStoresLease() async throws {
        let setup = try Setup()
        _ = try await setup.bootstrapper().bootstrap()
        #expect(setup.store.leaseCount == 1)
    }

    // MARK: Coalescing

    @Test func concurrentCallersShareOneRequest() async throws {
        let setup = try Setup()
        let bootstrapper = setup.bootstrapper()
        setup.fixture.provider.script(.slow(.seconds(2)), on: .anonymousBootstrap)
        let callers = 100
        let results = await withTaskGroup(of: GuestTokens?.self) { group in
            for _ in 0..<callers {
                group.addTask { try? await bootstrapper.bootstrap() }
            }
            await setup.fixture.clock.waitForSleepers(count: 1)
            await waitUntil(bootstrapper.changes) { bootstrapper.waitingCallerCount == callers }
            setup.fixture.clock.advance(by: .seconds(2))
            var results: [GuestTokens?] = []
            for await result in group { results.append(result) }
            return results
        }
        #expect(results.count == callers)
        #expect(results.allSatisfy { $0 != nil })
        #expect(Set(results.compactMap { $0?.accessToken.secret }).count == 1)
        #expect(setup.fixture.provider.requestCount(for: .anonymousBootstrap) == 1)
        #expect(bootstrapper.bootstrapCount == 1)
        #expect(setup.fixture.provider.guestDeviceCount == 1)
    }

    @Test func aCancelledCallerLeavesAndTheOthersStillGetTheAnswer() async throws {
        let setup = try Setup()
        let bootstrapper = setup.bootstrapper()
        setup.fixture.provider.script(.slow(.seconds(2)), on: .anonymousBootstrap)
        let staying = Self.call(bootstrapper)
        let leaving = Self.call(bootstrapper)
        let alsoStaying = Self.call(bootstrapper)
        await setup.fixture.clock.waitForSleepers(count: 1)
        await waitUntil(bootstrapper.changes) { bootstrapper.waitingCallerCount == 3 }
        leaving.cancel()
        #expect(await leaving.value == .failure(.cancelled))
        #expect(bootstrapper.waitingCallerCount == 2)
        setup.fixture.clock.advance(by: .seconds(2))
        let first = try await staying.value.get()
        let second = try await alsoStaying.value.get()
        #expect(first == second)
        #expect(setup.fixture.provider.requestCount(for: .anonymousBootstrap) == 1)
        // The bootstrap finished for the others, so its secret was stored.
        #expect(setup.store.guest?.deviceSecret != nil)
    }

    @Test func aCallerArrivingAfterTheAnswerStartsANewBootstrap() async throws {
        let setup = try Setup()
        let bootstrapper = setup.bootstrapper()
        _ = try await bootstrapper.bootstrap()
        _ = try await bootstrapper.bootstrap()
        #expect(bootstrapper.bootstrapCount == 2)
    }

    // MARK: Reset

    @Test func resetForgetsTheIDAndTheSecretSoTheNextBootstrapIsANewGuest() async throws {
        let setup = try Setup()
        let bootstrapper = setup.bootstrapper()
        let first = try await bootstrapper.bootstrap()
        try await bootstrapper.reset()
        #expect(setup.store.guest == nil)
        let next = try await bootstrapper.bootstrap()
        #expect(next.deviceID == "device-2")
        #expect(next.user != first.user)
        #expect(!next.startedOver)
    }

    @Test func resetDuringABootstrapCancelsItsCallersAndWritesNothing() async throws {
        let (setup, bootstrapper, caller) = try await Self.bootstrapUnderWay()
        let reset = Task { try await bootstrapper.reset() }
        #expect(await caller.value == .failure(.cancelled))
        setup.fixture.clock.advance(by: .seconds(2))
        try await reset.value
        // The provider issued a secret, but the interrupted procedure did not store it.
        #expect(setup.fixture.provider.guestDeviceCount == 1)
        #expect(setup.store.guest == nil)
    }

    @Test func shutdownAnswersItsCallersEndsItsWorkAndRefusesMore() async throws {
        let (setup, bootstrapper, caller) = try await Self.bootstrapUnderWay()
        // The clock never moves: the bootstrap in flight ends because it was cancelled.
        await bootstrapper.shutdown()
        #expect(bootstrapper.liveTaskCount == 0)
        #expect(await caller.value == .failure(.cancelled))
        #expect(setup.store.guest?.deviceSecret == nil)
        let sent = setup.fixture.provider.requestCount(for: .anonymousBootstrap)
        #expect(await Self.call(bootstrapper).value == .failure(.cancelled))
        #expect(setup.fixture.provider.requestCount(for: .anonymousBootstrap) == sent)
    }

    @Test func aFailedResetIsATypedError() async throws {
        let setup = try Setup()
        let bootstrapper = setup.bootstrapper()
        _ = try await bootstrapper.bootstrap()
        setup.store.failNext(.removeGuest, with: .permissionDenied("locked"))
        await #expect(throws: AnonymousBootstrapError.storage(.permissionDenied("locked"))) { try await bootstrapper.reset() }
        #expect(setup.store.guest != nil)
    }

    // MARK: Redaction

    @Test func noSecretShowsInDescriptionsDumpsErrorsOrTheRequestLog() async throws {
        let setup = try Setup()
        let bootstrapper = setup.bootstrapper()
        let tokens = try await bootstrapper.bootstrap()
        let stored = try #require(setup.store.guest)
        let secrets = [tokens.accessToken.secret.value, try #require(stored.deviceSecret).value]
        var rendered = [
            String(describing: tokens), String(reflecting: tokens), String(describing: stored), String(reflecting: stored),
            String(describing: AnonymousBootstrapRequest(deviceID: stored.deviceID, deviceSecret: stored.deviceSecret)),
            setup.fixture.provider.requestLog.map(\.description).joined(separator: "\n"),
        ]
        var dumped = ""
        dump(tokens, to: &dumped)
        dump(stored, to: &dumped)
        rendered.append(dumped)
        setup.fixture.provider.script(.rawAnswer(status: 200, body: #"{"access_token":"\#(secrets[0])"}"#), on: .anonymousBootstrap)
        do {
            _ = try await bootstrapper.bootstrap()
        } catch {
            rendered.append(String(describing: error))
        }
        for text in rendered {
            for secret in secrets { #expect(!text.contains(secret)) }
        }
        #expect(rendered.last?.contains("token_type") == true)
    }
}
