import Foundation
import SessionKitCore

/// One guest bootstrap, as a sequence of steps the owner performs.
///
/// Load the stored guest credential; a device seen for the first time gets its id stored before
/// the id is first sent, so a crash cannot register two devices. Bootstrap, presenting the stored
/// secret when there is one. A `401 invalid_device_secret` to a presented secret drops the secret
/// durably and bootstraps afresh exactly once; a second refusal (or one to a request without a
/// secret, which a retry would only repeat) ends with ``AnonymousBootstrapError/invalidDeviceSecret``.
/// A secret the answer carries is stored durably before the key is handed out: a key whose secret
/// could not be kept is not used, since the next bootstrap would be refused. The key's expiry is
/// `expires_in` after the "now" given with the answer, or `fallbackLifetime` when the provider
/// gave no lifetime.
///
/// It performs nothing itself: each input returns the next ``Step``, and the owner feeds back what
/// performing it gave. Script tests drive every branch.
struct GuestBootstrapProcedure: Sendable {
    /// The next thing the owner must do.
    enum Step: Sendable, Equatable {
        /// Read the stored guest credential.
        case load
        /// Replace the stored guest credential.
        case save(GuestCredential)
        /// Send one bootstrap request.
        case bootstrap(AnonymousBootstrapRequest)
        /// The procedure ended.
        case finish(Result<GuestTokens, AnonymousBootstrapError>)
    }

    private enum Phase {
        case loading
        case savingNewDevice
        case requesting
        case savingDroppedSecret
        case savingIssuedSecret(GuestTokens)
        case finished
    }

    /// The id a device seen for the first time is given (unused when one is stored).
    let freshDeviceID: String
    /// The display name sent with each bootstrap, if any.
    let deviceName: String?
    /// The lifetime assumed, in seconds, for a key whose answer has no `expires_in`.
    let fallbackLifetime: Double

    private var phase = Phase.loading
    private var credential = GuestCredential(deviceID: "")
    private var startedOver = false

    init(freshDeviceID: String, deviceName: String? = nil, fallbackLifetime: Double = 300) {
        self.freshDeviceID = freshDeviceID
        self.deviceName = deviceName
        self.fallbackLifetime = fallbackLifetime
    }

    /// The first step.
    mutating func start() -> Step {
        phase = .loading
        return .load
    }

    /// The stored guest credential was read (or could not be).
    mutating func loaded(_ result: Result<GuestCredential?, CredentialStoreError>) -> Step {
        guard case .loading = phase else { return inconsistency("a guest credential was loaded in the wrong phase") }
        switch result {
        case .failure(let error):
            return finish(.failure(.storage(error)))
        case .success(let stored?) where !stored.deviceID.isEmpty:
            credential = stored
            return request()
        case .success:
            credential = GuestCredential(deviceID: freshDeviceID)
            phase = .savingNewDevice
            return .save(credential)
        }
    }

    /// The provider answered one bootstrap request; `now` is when the answer arrived.
    mutating func answered(_ answer: ProviderClient.AnonymousBootstrapAnswer, now: Date) -> Step {
        guard case .requesting = phase else { return inconsistency("a bootstrap answer arrived in the wrong phase") }
        switch answer {
        case .issued(let response):
            let lifetime = response.expiresIn.map(Double.init) ?? fallbackLifetime
            let tokens = GuestTokens(
                accessToken: AccessToken(secret: response.accessToken, expiresAt: now.addingTimeInterval(lifetime)),
                user: response.user, deviceID: credential.deviceID, startedOver: startedOver)
            guard let issued = response.deviceSecret, issued != credential.deviceSecret else {
                return finish(.success(tokens))
            }
            credential.deviceSecret = issued
            phase = .savingIssuedSecret(tokens)
            return .save(credential)
        case .invalidDeviceSecret:
            guard credential.deviceSecret != nil, !startedOver else { return finish(.failure(.invalidDeviceSecret)) }
            // The provider no longer knows this secret (a server-side reset, a restored backup):
            // forget it durably, then bootstrap as a new device would, once.
            startedOver = true
            credential.deviceSecret = nil
            phase = .savingDroppedSecret
            return .save(credential)
        case .failed(let error):
            return finish(.failure(error))
        }
    }

    /// The stored guest credential was replaced (or could not be).
    mutating func saved(_ result: Result<Void, CredentialStoreError>) -> Step {
        switch (phase, result) {
        case (.loading, _), (.requesting, _), (.finished, _):
            return inconsistency("a save finished in the wrong phase")
        case (_, .failure(let error)):
            // Nothing goes out, and no key is handed out, on a credential the store does not hold.
            return finish(.failure(.storage(error)))
        case (.savingNewDevice, .success), (.savingDroppedSecret, .success):
            return request()
        case (.savingIssuedSecret(let tokens), .success):
            return finish(.success(tokens))
        }
    }

    private mutating func request() -> Step {
        phase = .requesting
        return .bootstrap(
            AnonymousBootstrapRequest(deviceID: credential.deviceID, deviceSecret: credential.deviceSecret, deviceName: deviceName))
    }

    /// Our own bug: an answer in the wrong phase. A debug build stops here; a release build ends
    /// the bootstrap, and a session that ran it stops.
    private mutating func inconsistency(_ what: String) -> Step {
        assertionFailure("GuestBootstrapProcedure: \(what)")
        return finish(.failure(.inconsistent(what)))
    }

    private mutating func finish(_ result: Result<GuestTokens, AnonymousBootstrapError>) -> Step {
        phase = .finished
        return .finish(result)
    }
}
