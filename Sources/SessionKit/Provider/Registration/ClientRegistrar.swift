public import Foundation
public import SessionKitCore

/// Registers the app at a provider's registration endpoint (RFC 7591, OpenID Connect Dynamic
/// Client Registration 1.0), keeps the registration durably, and reads or deletes it with its
/// registration access token (RFC 7592).
///
/// Call ``currentRegistration()`` before making a ``Session``: it returns the stored registration
/// while its secret lasts (no request at all), and registers afresh when none is stored, when the
/// stored one belongs to another issuer, or when its secret has expired on the injected wall clock.
/// Then ``SessionConfiguration/use(_:)`` puts the issued `client_id` and secret into the session's
/// configuration, and the client authentication middlewares send them.
///
/// ```swift
/// let provider = try await ProviderConfiguration.discover(issuer: issuer, clientID: "", redirectURI: redirect, transport: transport)
/// let registrar = ClientRegistrar(provider: provider, metadata: ClientMetadata(redirectURIs: [redirect]),
///                                 store: store, transport: transport, now: { Date() })
/// var configuration = SessionConfiguration(provider: provider)
/// configuration.use(try await registrar.currentRegistration())
/// ```
///
/// An answer that is not a usable registration (not JSON, no `client_id`, a secret without its
/// expiry, no secret for a secret method, a registration access token without its URI, the
/// redirect URI dropped) is ``ClientRegistrationError/Code/malformedResponse`` and changes nothing
/// stored. A refusal is typed by its RFC 7591 §3.2.2 code.
public struct ClientRegistrar: Sendable {
    /// The provider; its ``ProviderConfiguration/registrationEndpoint`` is where the app registers.
    public let provider: ProviderConfiguration
    /// What the app asks to be registered as.
    public let metadata: ClientMetadata
    /// Where the registration is kept.
    public let store: any ClientRegistrationStore
    /// Every registration request goes through it; it must not follow redirects.
    public let transport: any HTTPTransport
    /// The initial access token some providers require for registration (RFC 7591 §3), sent as a
    /// Bearer token; never rendered.
    let initialAccessToken: Secret?
    let now: @Sendable () -> Date

    /// A registrar for `provider`, asking for `metadata`, keeping the result in `store`.
    ///
    /// - Parameters:
    ///   - provider: The provider, with its registration endpoint (from discovery).
    ///   - metadata: What the app asks to be registered as.
    ///   - store: Where the registration is kept durably.
    ///   - transport: Sends the registration requests; it must not follow redirects.
    ///   - initialAccessToken: The token a provider with protected registration hands out
    ///     beforehand (RFC 7591 §3); `nil` for open registration.
    ///   - now: The wall clock that judges the secret's expiry.
    public init(
        provider: ProviderConfiguration, metadata: ClientMetadata, store: any ClientRegistrationStore, transport: any HTTPTransport,
        initialAccessToken: Secret? = nil, now: @escaping @Sendable () -> Date
    ) {
        self.provider = provider
        self.metadata = metadata
        self.store = store
        self.transport = transport
        self.initialAccessToken = initialAccessToken
        self.now = now
    }

    /// The stored registration while it can be used; otherwise a new one, registered and stored.
    ///
    /// A stored registration is used when it belongs to this provider's issuer, registers the
    /// redirect URI sign-ins use (the first of ``ClientMetadata/redirectURIs``), and its secret has
    /// not expired at `now`.
    public func currentRegistration() async throws(ClientRegistrationError) -> ClientRegistration {
        if let stored = try await loadStored(), stored.issuer == provider.issuer, !stored.isSecretExpired(at: now()),
            metadata.redirectURIs.first.map(stored.redirectURIs.contains) ?? true
        {
            return stored
        }
        return try await register()
    }

    /// Registers the app now (RFC 7591 §3.1) and stores the registration, replacing any earlier
    /// one. Nothing stored changes unless the provider's answer is a usable registration.
    @discardableResult
    public func register() async throws(ClientRegistrationError) -> ClientRegistration {
        guard let endpoint = provider.registrationEndpoint else {
            throw ClientRegistrationError(code: .notSupported, message: "the provider offers no registration endpoint")
        }
        var headers = [("Content-Type", "application/json"), ("Accept", "application/json")]
        if let initialAccessToken { headers.append(("Authorization", "Bearer \(initialAccessToken.value)")) }
        let response = try await send(HTTPRequest(method: "POST", url: endpoint, headers: headers, body: metadata.jsonBody))
        // RFC 7591 §3.2.1 says 201; a 200 with a registration in it is taken too.
        guard response.status == 201 || response.status == 200 else { throw Self.refusal(response) }
        let registration = try parse(response.body, previous: nil)
        do {
            try await save(registration)
        } catch {
            // A client the app cannot remember is of no use to anyone: ask the provider to forget it
            // too, when it can be asked. Its answer changes nothing here.
            if let uri = registration.registrationClientURI, let token = registration.registrationAccessToken {
                _ = try? await send(HTTPRequest(method: "DELETE", url: uri, headers: [("Authorization", "Bearer \(token.value)")]))
            }
            throw error
        }
        return registration
    }

    /// Reads the registration at the provider (RFC 7592 §2.1) with its registration access token,
    /// and stores what the provider answers (it may have rotated the secret or the token).
    ///
    /// A refused token (401, 403) or a registration the provider no longer knows (404) is
    /// ``ClientRegistrationError/Code/invalidToken``, and the stored registration stays as it was.
    @discardableResult
    public func read() async throws(ClientRegistrationError) -> ClientRegistration {
        let (stored, uri, token) = try await management()
        let response = try await send(
            HTTPRequest(method: "GET", url: uri, headers: [("Authorization", "Bearer \(token.value)"), ("Accept", "application/json")]))
        guard response.status == 200 else { throw Self.refusal(response) }
        let registration = try parse(response.body, previous: stored)
        guard registration.clientID == stored.clientID else {
            throw ClientRegistrationError(
                code: .malformedResponse, message: "the registration read back names another client_id", status: response.status)
        }
        try await save(registration)
        return registration
    }

    /// Deletes the registration at the provider (RFC 7592 §2.3), then forgets it locally. The
    /// provider's `204` (or `200`) confirms; a refusal keeps the stored registration.
    public func delete() async throws(ClientRegistrationError) {
        let (_, uri, token) = try await management()
        let response = try await send(HTTPRequest(method: "DELETE", url: uri, headers: [("Authorization", "Bearer \(token.value)")]))
        guard response.status == 204 || response.status == 200 else { throw Self.refusal(response) }
        do {
            try await store.removeRegistration()
        } catch {
            throw ClientRegistrationError(code: .storage, message: "the registration could not be forgotten: \(error)")
        }
    }

    // MARK: Parts

    private func management() async throws(ClientRegistrationError) -> (ClientRegistration, URL, Secret) {
        guard let stored = try await loadStored() else {
            throw ClientRegistrationError(code: .notSupported, message: "no registration is stored")
        }
        guard let uri = stored.registrationClientURI, let token = stored.registrationAccessToken else {
            throw ClientRegistrationError(code: .notSupported, message: "the registration has no registration access token")
        }
        return (stored, uri, token)
    }

    private func loadStored() async throws(ClientRegistrationError) -> ClientRegistration? {
        do {
            return try await store.loadRegistration()
        } catch {
            throw ClientRegistrationError(code: .storage, message: "the registration could not be read: \(error)")
        }
    }

    private func save(_ registration: ClientRegistration) async throws(ClientRegistrationError) {
        do {
            try await store.saveRegistration(registration)
        } catch {
            throw ClientRegistrationError(code: .storage, message: "the registration could not be stored: \(error)")
        }
    }

    private func send(_ request: HTTPRequest) async throws(ClientRegistrationError) -> HTTPResponse {
        do {
            return try await transport.send(request)
        } catch {
            throw ClientRegistrationError(code: .transport, message: "the provider could not be reached: \(error)")
        }
    }

    /// The typed refusal for a non-success answer: its RFC 7591 §3.2.2 `error` when the body has
    /// one; `invalid_token` for 401, 403 and 404 without one (RFC 7592 §2).
    static func refusal(_ response: HTTPResponse) -> ClientRegistrationError {
        let object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        let error = object?["error"] as? String
        let description = (object?["error_description"] as? String).map { ": " + String($0.prefix(200)) } ?? ""
        var code = Code.registrationError(error)
        if error == nil, [401, 403, 404].contains(response.status) { code = .invalidToken }
        if error == nil, code == .refused, (200...299).contains(response.status) { code = .malformedResponse }
        return ClientRegistrationError(
            code: code, message: "the provider answered HTTP \(response.status)\(error.map { " " + $0 } ?? "")\(description)",
            providerError: error, status: response.status)
    }

    private typealias Code = ClientRegistrationError.Code
}
