import Foundation
import SessionKitCore

/// Client authentication for a session whose client was registered dynamically, keeping the
/// registration current while the session runs (``SessionConfiguration/use(_:renewingWith:)``).
///
/// Before every request that authenticates the client (token, revocation, device authorization)
/// it checks the secret's `client_secret_expires_at` (RFC 7591 §3.2.1) on the injected wall clock.
/// While the secret lasts, the request is authenticated with it, with no other request. Once it
/// has expired, one renewal runs (concurrent requests wait for it and share its result):
///
/// 1. The store may already hold a current secret of the same client (another process renewed
///    it): that one is used.
/// 2. Otherwise the registration is read with its registration access token (RFC 7592 §2.1), which
///    may return a rotated secret; the store keeps what the provider answers, and a current
///    secret of the same client is used.
/// 3. When the provider has no client configuration endpoint for it, says the registration is
///    gone (an `invalid_token` refusal: 401, 403, 404), or answers the expired secret unchanged,
///    the app is registered anew and the new registration stored. The session's grants were
///    issued to the old client id, so the request fails with
///    ``ClientRegistrationError/Code/clientReplaced``, which ends the session: sign in again with
///    a session made from the new registration. Every later request of this session fails the
///    same way without asking the provider again, so nothing loops.
///
/// A renewal that fails otherwise (no answer, a malformed one, a store failure) fails the request
/// with a transient error and keeps every credential; the next request tries again.
final class RenewingClientAuthentication: RequestMiddleware {
    private let registrar: ClientRegistrar
    /// The session's provider, with the client id its grants belong to.
    private let provider: ProviderConfiguration
    private var clientID: String { provider.clientID }
    private let now: @Sendable () -> Date
    /// The registration the session authenticates with, as last known.
    private let current: Locked<ClientRegistration>
    /// One renewal at a time.
    private let renewal = AsyncMutex()

    /// Authenticates as `registration` at `provider` (whose client id is the registration's),
    /// renewing it with `registrar`.
    init(
        registration: ClientRegistration, provider: ProviderConfiguration, registrar: ClientRegistrar,
        now: @escaping @Sendable () -> Date
    ) {
        self.registrar = registrar
        self.provider = provider
        self.now = now
        self.current = Locked(registration)
    }

    func intercept(
        _ request: HTTPRequest, endpoint: ProviderEndpoint,
        next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
    ) async throws(ProviderError) -> HTTPResponse {
        guard ProviderEndpoint.clientAuthenticated.contains(endpoint) else { return try await next(request) }
        let registration = try await usableRegistration()
        let chain = registration.clientAuthentication.middleware(for: provider, now: now)
        return try await Self.send(request, endpoint: endpoint, through: chain[...], next: next)
    }

    /// The registration to authenticate with now, renewed first when its secret has expired.
    func usableRegistration() async throws(ProviderError) -> ClientRegistration {
        if let usable = usableWithoutRenewal() { return usable }
        do {
            try await renewal.lock()
        } catch {
            throw .transport(.cancelled)
        }
        defer { renewal.unlock() }
        // Another request may have renewed while this one waited.
        if let usable = usableWithoutRenewal() { return usable }
        let renewed: ClientRegistration
        do throws(ClientRegistrationError) {
            renewed = try await renew()
        } catch {
            throw .clientRegistration(error)
        }
        current.withLock { $0 = renewed }
        guard renewed.clientID == clientID else { throw .clientRegistration(Self.replaced(by: renewed)) }
        return renewed
    }

    /// The current registration when it needs no renewal: its secret lasts. A replaced client
    /// fails at once.
    private func usableWithoutRenewal() -> ClientRegistration? {
        let registration = current.withLock { $0 }
        return registration.clientID == clientID && !registration.isSecretExpired(at: now()) ? registration : nil
    }

    /// The steps of the type's discussion; a registration of another client id means the client
    /// was replaced.
    private func renew() async throws(ClientRegistrationError) -> ClientRegistration {
        let previous = current.withLock { $0 }
        if previous.clientID != clientID { return previous }
        let stored: ClientRegistration?
        do {
            stored = try await registrar.store.loadRegistration()
        } catch {
            throw ClientRegistrationError(code: .storage, message: "the registration could not be read: \(error)")
        }
        if let stored, stored.issuer == previous.issuer, !stored.isSecretExpired(at: now()) {
            // Renewed elsewhere: the same client with a current secret, or already a new client.
            return stored
        }
        if stored?.clientID == clientID {
            do {
                let read = try await registrar.read()
                if read.clientID == clientID, !read.isSecretExpired(at: now()) { return read }
            } catch {
                // Gone, or no way to ask: register anew below. Anything else is for later.
                guard error.code == .invalidToken || error.code == .notSupported else { throw error }
            }
        }
        return try await registrar.register()
    }

    private static func replaced(by registration: ClientRegistration) -> ClientRegistrationError {
        ClientRegistrationError(
            code: .clientReplaced,
            message: "the client's secret expired and the provider no longer knows the client; "
                + "a new client (\(registration.clientID)) was registered: sign in again with it")
    }

    /// Sends `request` through `chain`, then `next`.
    private static func send(
        _ request: HTTPRequest, endpoint: ProviderEndpoint, through chain: ArraySlice<any RequestMiddleware>,
        next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
    ) async throws(ProviderError) -> HTTPResponse {
        guard let first = chain.first else { return try await next(request) }
        return try await first.intercept(request, endpoint: endpoint) { (request) async throws(ProviderError) -> HTTPResponse in
            try await send(request, endpoint: endpoint, through: chain.dropFirst(), next: next)
        }
    }
}
