import Foundation
import SessionKitCore

/// Performs one ``GuestBootstrapProcedure`` against the provider and a guest credential store: the
/// I/O of a guest bootstrap, with no decision of its own. `Session` (a guest session's start and
/// the renewal of its key) and ``GuestBootstrapper`` both run bootstraps through it.
struct GuestBootstrapRun: Sendable {
    let client: ProviderClient
    let store: any GuestCredentialStore
    let now: @Sendable () -> Date
    let deviceName: String?
    /// Seconds a key whose answer has no `expires_in` is taken to last.
    let fallbackLifetime: Double
    let makeDeviceID: @Sendable () -> String

    init(
        client: ProviderClient, store: any GuestCredentialStore, now: @escaping @Sendable () -> Date, deviceName: String?,
        fallbackLifetime: Duration, makeDeviceID: @escaping @Sendable () -> String
    ) {
        self.client = client
        self.store = store
        self.now = now
        self.deviceName = deviceName
        self.fallbackLifetime = RefreshTiming.seconds(fallbackLifetime)
        self.makeDeviceID = makeDeviceID
    }

    /// Runs the procedure to its end. `isCurrent` is asked before each write and each request: once
    /// it answers `false` (the guest was reset, the session moved on), nothing more is written or
    /// sent, and the run ends ``AnonymousBootstrapError/cancelled``.
    func perform(isCurrent: @Sendable () -> Bool) async -> Result<GuestTokens, AnonymousBootstrapError> {
        var procedure = GuestBootstrapProcedure(freshDeviceID: makeDeviceID(), deviceName: deviceName, fallbackLifetime: fallbackLifetime)
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
                guard isCurrent() else { return .failure(.cancelled) }
                do throws(CredentialStoreError) {
                    try await store.saveGuest(credential)
                    step = procedure.saved(.success(()))
                } catch {
                    step = procedure.saved(.failure(error))
                }
            case .bootstrap(let request):
                guard isCurrent() else { return .failure(.cancelled) }
                let answer = await client.anonymousBootstrapAnswer(request)
                step = procedure.answered(answer, now: now())
            case .finish(let result):
                return result
            }
        }
    }
}
