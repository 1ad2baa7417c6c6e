import Foundation

/// Runs guest bootstraps (`GuestBootstrapProcedure`) against the provider and the guest
/// credential store, one at a time: however many callers ask at once, one procedure runs (one
/// request, or two when the recovery rule bootstraps afresh) and every caller gets its result.
///
/// The procedure runs in one task owned by the bootstrapper, so no caller's cancellation stops
/// it: a cancelled caller gets ``AnonymousBootstrapError/cancelled`` and leaves, the others still
/// get the answer. When the store is also a ``CredentialStore``, the procedure runs under the
/// store's lease, so processes sharing the store bootstrap one at a time too.
///
/// ``reset()`` forgets the guest credential (sign-out of a guest, or a promotion to a signed-in
/// account): callers waiting for a bootstrap under way get ``AnonymousBootstrapError/cancelled``,
/// and that bootstrap writes nothing more.
public actor GuestBootstrapper {
    private typealias Waiter = CheckedContinuation<Result<GuestTokens, AnonymousBootstrapError>, Never>

    /// The bootstrap under way and the callers waiting for it.
    private struct Flight {
        let generation: UInt64
        var waiters: [UInt64: Waiter]
        var task: Task<Void, Never>?
    }

    private let client: ProviderClient
    private let store: any GuestCredentialStore
    private let now: @Sendable () -> Date
    private let deviceName: String?
    private let fallbackLifetime: Double
    private let makeDeviceID: @Sendable () -> String

    private var flight: Flight?
    /// Bumped by ``reset()``; a procedure from an older generation writes nothing.
    private var generation: UInt64 = 0
    private var nextWaiterID: UInt64 = 0
    private var resetInProgress: Task<CredentialStoreError?, Never>?
    private var proceduresStarted = 0

    /// Creates a bootstrapper.
    ///
    /// - Parameters:
    ///   - client: the provider client; its configuration's ``ProviderConfiguration/anonymousBootstrap`` is used.
    ///   - store: where the guest's device id and secret live.
    ///   - now: the wall clock that turns `expires_in` into an expiry date.
    ///   - deviceName: a display name sent with each bootstrap, when the profile takes one.
    ///   - fallbackLifetime: how long a key whose answer has no `expires_in` is taken to last.
    ///   - makeDeviceID: makes the id of a device seen for the first time.
    public init(
        client: ProviderClient, store: any GuestCredentialStore, now: @escaping @Sendable () -> Date, deviceName: String? = nil,
        fallbackLifetime: Duration = .seconds(300), makeDeviceID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.client = client
        self.store = store
        self.now = now
        self.deviceName = deviceName
        let parts = fallbackLifetime.components
        self.fallbackLifetime = Double(parts.seconds) + Double(parts.attoseconds) / 1e18
        self.makeDeviceID = makeDeviceID
    }

    /// How many procedures this bootstrapper has started (a fresh retry counts within its procedure).
    public var bootstrapCount: Int { proceduresStarted }

    /// How many callers are waiting for the bootstrap under way.
    public var waitingCallerCount: Int { flight?.waiters.count ?? 0 }

    /// Notified after every change of the waiting callers, for tests that wait on them.
    package nonisolated let changes = SessionChangeFeed()

    /// Bootstraps the guest (or renews its key with the stored secret) and returns the new key.
    ///
    /// Callers arriving while a bootstrap is under way join it.
    public func bootstrap() async throws(AnonymousBootstrapError) -> GuestTokens {
        let id = nextWaiterID
        nextWaiterID += 1
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                guard !Task.isCancelled else {
                    continuation.resume(returning: .failure(.cancelled))
                    return
                }
                join(id: id, continuation: continuation)
            }
        } onCancel: {
            Task { await self.cancelWaiter(id: id) }
        }
        return try result.get()
    }

    /// Forgets the guest credential: the device id and secret in the store. Callers waiting for a
    /// bootstrap under way get ``AnonymousBootstrapError/cancelled``, and it writes nothing more.
    public func reset() async throws(AnonymousBootstrapError) {
        generation += 1
        let previous = flight
        flight = nil
        if let previous {
            for waiter in previous.waiters.values {
                waiter.resume(returning: .failure(.cancelled))
            }
            changes.notify()
        }
        // Removal waits for the procedure it interrupted, and procedures started meanwhile wait
        // for the removal, so no write of the old guest can land after it.
        let earlierReset = resetInProgress
        let store = store
        let removal = Task { () -> CredentialStoreError? in
            _ = await earlierReset?.value
            await previous?.task?.value
            do throws(CredentialStoreError) {
                try await store.removeGuest()
                return nil
            } catch {
                return error
            }
        }
        resetInProgress = removal
        let failure = await removal.value
        if resetInProgress == removal { resetInProgress = nil }
        if let failure { throw .storage(failure) }
    }

    // MARK: Waiters

    private func join(id: UInt64, continuation: Waiter) {
        defer { changes.notify() }
        if flight != nil {
            flight?.waiters[id] = continuation
            return
        }
        let generation = generation
        proceduresStarted += 1
        flight = Flight(generation: generation, waiters: [id: continuation])
        flight?.task = Task {
            let result = await self.runUnderLease(generation: generation)
            self.finish(generation: generation, result: result)
        }
    }

    private func cancelWaiter(id: UInt64) {
        // Already resumed with a result when absent: the cancellation came too late to matter.
        flight?.waiters.removeValue(forKey: id)?.resume(returning: .failure(.cancelled))
        changes.notify()
    }

    private func finish(generation: UInt64, result: Result<GuestTokens, AnonymousBootstrapError>) {
        // A reset already answered this bootstrap's waiters.
        guard let finished = flight, finished.generation == generation else { return }
        flight = nil
        for waiter in finished.waiters.values {
            waiter.resume(returning: result)
        }
        changes.notify()
    }

    // MARK: Running the procedure

    private func runUnderLease(generation: UInt64) async -> Result<GuestTokens, AnonymousBootstrapError> {
        if let resetInProgress { _ = await resetInProgress.value }
        guard let leased = store as? any CredentialStore else { return await run(generation: generation) }
        do {
            return try await leased.withLease { await self.run(generation: generation) }
        } catch let error as CredentialStoreError {
            return .failure(.storage(error))
        } catch {
            return .failure(.cancelled)
        }
    }

    private func run(generation: UInt64) async -> Result<GuestTokens, AnonymousBootstrapError> {
        var procedure = GuestBootstrapProcedure(
            freshDeviceID: makeDeviceID(), deviceName: deviceName, fallbackLifetime: fallbackLifetime)
        var step = procedure.start()
        while true {
            switch step {
            case .load:
                do throws(CredentialStoreError) {
                    step = procedure.loaded(.success(try await store.loadGuest()))
                } catch {
                    step = procedure.loaded(.failure(error))
                }
            case .save(let credential):
                guard generation == self.generation else { return .failure(.cancelled) }
                do throws(CredentialStoreError) {
                    try await store.saveGuest(credential)
                    step = procedure.saved(.success(()))
                } catch {
                    step = procedure.saved(.failure(error))
                }
            case .bootstrap(let request):
                guard generation == self.generation else { return .failure(.cancelled) }
                let answer = await client.anonymousBootstrapAnswer(request)
                step = procedure.answered(answer, now: now())
            case .finish(let result):
                return result
            }
        }
    }
}
