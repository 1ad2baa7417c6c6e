public import Foundation
package import SessionKitCore
import Synchronization

/// Runs guest bootstraps (`GuestBootstrapProcedure`) against the provider and the guest
/// credential store, one at a time, for an app that manages a guest's key itself. A `Session`
/// needs none: ``Session/startGuestSession()`` runs guest sessions in its own stages.
///
/// However many callers ask at once, one procedure runs (one request, or two when the recovery
/// rule bootstraps afresh) and every caller gets its result: the callers share one
/// `SingleFlight`, whose work is a child of the bootstrapper's own task owner, so one caller's
/// cancellation does not stop it for the others (a cancelled caller gets
/// ``AnonymousBootstrapError/cancelled`` and leaves). When the store is also a
/// ``CredentialStore``, the procedure runs under the store's lease, so processes sharing the store
/// bootstrap one at a time too.
///
/// ``reset()`` forgets the guest credential (sign-out of a guest, or a promotion to a signed-in
/// account): callers waiting for a bootstrap under way get ``AnonymousBootstrapError/cancelled``,
/// and that bootstrap writes nothing more. ``shutdown()`` ends the bootstrapper and every task it
/// started.
public final class GuestBootstrapper: Sendable {
    private let run: GuestBootstrapRun
    private let owner = TaskOwner()
    private let flight: SingleFlight<GuestTokens, AnonymousBootstrapError>
    /// Held by a procedure while it runs and by a reset while it removes, so no write of an
    /// interrupted procedure can land after the removal.
    private let writes = AsyncMutex()
    /// Bumped by ``reset()``; a procedure from an older generation writes nothing more.
    private let generation = Atomic<UInt64>(0)

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
        self.run = GuestBootstrapRun(
            client: client, store: store, now: now, deviceName: deviceName, fallbackLifetime: fallbackLifetime, makeDeviceID: makeDeviceID)
        self.flight = SingleFlight(owner: owner)
    }

    deinit {
        owner.abandon()
    }

    /// How many procedures this bootstrapper has started (a fresh retry counts within its procedure).
    public var bootstrapCount: Int { flight.flightsStarted }

    /// How many callers are waiting for the bootstrap under way.
    public var waitingCallerCount: Int { flight.waitingCallerCount }

    /// Notified after every change of the waiting callers, for tests that wait on them.
    package var changes: SessionChangeFeed { flight.changes }

    /// Bootstraps the guest (or renews its key with the stored secret) and returns the new key.
    ///
    /// Callers arriving while a bootstrap is under way join it.
    public func bootstrap() async throws(AnonymousBootstrapError) -> GuestTokens {
        let started = generation.load(ordering: .relaxed)
        return try await flight.run(cancelled: .cancelled) { [self] in await runUnderLease(generation: started) }.get()
    }

    /// Forgets the guest credential: the device id and secret in the store. Callers waiting for a
    /// bootstrap under way get ``AnonymousBootstrapError/cancelled``, and it writes nothing more.
    public func reset() async throws(AnonymousBootstrapError) {
        generation.add(1, ordering: .relaxed)
        flight.cancelFlight(cancelled: .cancelled)
        do {
            try await writes.lock()
        } catch {
            throw .cancelled
        }
        defer { writes.unlock() }
        do throws(CredentialStoreError) {
            try await run.store.removeGuest()
        } catch {
            throw .storage(error)
        }
    }

    /// Ends the bootstrapper: callers waiting for a bootstrap under way get
    /// ``AnonymousBootstrapError/cancelled``, that bootstrap writes nothing more, and this returns
    /// once every task the bootstrapper started has ended. Later calls to ``bootstrap()`` throw
    /// ``AnonymousBootstrapError/cancelled`` without sending anything; the stored credential is
    /// kept (``reset()`` forgets it).
    public func shutdown() async {
        generation.add(1, ordering: .relaxed)
        flight.cancelFlight(cancelled: .cancelled)
        await owner.shutdown()
    }

    /// How many tasks of the bootstrapper are alive, for tests that check ``shutdown()``.
    package var liveTaskCount: Int { owner.liveChildren }

    private func runUnderLease(generation started: UInt64) async -> Result<GuestTokens, AnonymousBootstrapError> {
        do {
            try await writes.lock()
        } catch {
            return .failure(.cancelled)
        }
        defer { writes.unlock() }
        let isCurrent: @Sendable () -> Bool = { [self] in generation.load(ordering: .relaxed) == started }
        guard let leased = run.store as? any CredentialStore else { return await run.perform(isCurrent: isCurrent) }
        do {
            return try await leased.withLease { [run] in await run.perform(isCurrent: isCurrent) }
        } catch let error as CredentialStoreError {
            return .failure(.storage(error))
        } catch {
            return .failure(.cancelled)
        }
    }
}
