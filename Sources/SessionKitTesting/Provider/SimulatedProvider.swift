public import Foundation
public import SessionKit
public import SessionKitCore
public import SessionKitJOSE
import Synchronization

/// An in-process OpenID provider on the 1pass.dev profile that plugs into the `HTTPTransport` seam.
///
/// It behaves like a real provider, so session logic can be tested end to end without a network:
/// RS256-signed id_tokens (ES256 when configured), authorization codes bound to PKCE S256, refresh-token rotation with
/// reuse detection (a replayed refresh token revokes its whole chain, unless a reuse grace period
/// forgives the replay of the token just replaced), RFC 7009 revocation,
/// device-bound keys and app disconnect, guest bootstraps (a secret issued once, reuse, mismatch,
/// server-side reset), signing-key rotation. Each endpoint can be scripted to
/// fail for its next calls (``script(_:on:times:)``), and every request is logged without secrets.
///
/// Token times come from the injected wall clock `now`; scripted waits (timeouts, slow answers)
/// sleep on the injected `clock`, so a test clock makes them instantaneous and deterministic.
///
/// ```swift
/// let clock = TestClock()
/// let provider = try SimulatedProvider(clock: clock, now: { clock.wallClockNow() })
/// provider.script(.serverError(), on: .token, times: 2)
/// ```
public final class SimulatedProvider<C: Clock>: HTTPTransport, Sendable where C.Duration == Duration {
    /// The issuer, client and lifetimes this provider was started with.
    public let configuration: SimulatedProviderConfiguration
    private let clock: C
    private let now: @Sendable () -> Date
    /// How far this provider's clock is moved from the injected wall clock, in seconds.
    private let clockShift: ClockShift
    let state: Locked<SimulatedProviderState>

    /// Starts a provider.
    ///
    /// - Parameters:
    ///   - configuration: issuer, client, redirect URI and lifetimes.
    ///   - clock: the clock scripted waits sleep on.
    ///   - now: the wall clock that stamps tokens (`iat`, `exp`, `expires_in`) and judges expiry.
    ///   - signingKeys: pre-generated RSA keys (see ``SimulatedProviderKeys``): the first signs from
    ///     the start, the others are used in turn by ``rotateSigningKey(retainPreviousFor:)``. When
    ///     empty, a 2048-bit key is generated, which takes a noticeable fraction of a second. A
    ///     provider configured for ES256 (``SimulatedProviderConfiguration/idTokenSigningAlgorithm``)
    ///     ignores them and generates a P-256 key for each signing key, which is cheap.
    public init(
        configuration: SimulatedProviderConfiguration = SimulatedProviderConfiguration(), clock: C,
        now: @escaping @Sendable () -> Date, signingKeys: [RSAPrivateKey] = []
    ) throws(CryptoError) {
        let first: SimulatedProviderState.SigningKey.Signer
        var spares: [RSAPrivateKey] = []
        if configuration.idTokenSigningAlgorithm == .es256 {
            first = .p256(try P256PrivateKey.generate())
        } else {
            if let key = signingKeys.first {
                first = .rsa(key)
            } else {
                first = .rsa(try RSAPrivateKey.generate(bitCount: 2048))
            }
            spares = Array(signingKeys.dropFirst())
        }
        self.configuration = configuration
        self.clock = clock
        let clockShift = ClockShift()
        self.clockShift = clockShift
        self.now = { now().addingTimeInterval(clockShift.seconds.withLock { $0 }) }
        self.state = Locked(SimulatedProviderState(configuration: configuration, first: first, spareKeys: spares))
    }

    /// Notified after every request received, for ``SimulatedSessionEnvironment``'s waits.
    package let changes = SessionChangeFeed()

    // MARK: HTTP

    /// Answers one request as the provider would, after any fault scripted for its endpoint.
    ///
    /// A URL outside the issuer's origin fails with `connectionFailed`, as no host would answer it.
    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        guard !Task.isCancelled else { throw .cancelled }
        let receivedAt = now()
        let outcome = state.withLock { $0.receive(request, now: receivedAt) }
        changes.notify()
        // Every answer says the provider's time (RFC 9110 §6.6.1), from its own clock.
        let date = HTTPDate.format(secondsSince1970: Int64(receivedAt.timeIntervalSince1970.rounded(.down)))
        switch outcome {
        case .respond(var response):
            response.headers["date"] = date
            return response
        case .respondAfter(let delay, var response):
            try await sleep(for: delay)
            response.headers["date"] = date
            return response
        case .timeOut:
            try await sleep(for: configuration.timeoutDeadline)
            throw .timedOut
        case .fail(let error):
            throw error
        }
    }

    private func sleep(for duration: Duration) async throws(TransportError) {
        do {
            try await clock.sleep(for: duration)
        } catch {
            throw .cancelled
        }
    }

    // MARK: Authorization

    /// Plays the authorization page: validates the request and returns the callback URL the
    /// browser would be sent to.
    ///
    /// The callback carries `code` and `state` (and `iss`, see
    /// ``SimulatedProviderConfiguration/includesIssuerInCallback``), or `error=access_denied` when
    /// the person denies, or another `error` when the request is unacceptable (no PKCE S256, a
    /// response type other than `code`, no `openid` scope). The code remembers the PKCE challenge,
    /// the nonce, the redirect URI and `subject`, and may be exchanged once.
    ///
    /// - Throws: when the request names an unknown client or redirect URI, to which no provider
    ///   would ever redirect.
    public func authorize(
        _ authorizationURL: URL, subject: String, decision: SimulatedProviderDecision = .approve
    ) throws(SimulatedProviderAuthorizationError) -> URL {
        try state.withLock { (state) throws(SimulatedProviderAuthorizationError) -> URL in
            try state.authorize(authorizationURL, subject: subject, decision: decision, now: now())
        }
    }

    /// Sets the identity claims id_tokens carry for `user.subject` from now on.
    public func register(_ user: SimulatedProviderUser) {
        state.withLock { $0.users[user.subject] = user }
    }

    // MARK: Faults

    /// Makes the next `times` calls to `endpoint` show `fault`.
    ///
    /// Faults scripted for the same endpoint queue up in order: `script(.timeout, on: .token)`
    /// then `script(.serverError(), on: .token, times: 2)` makes the next three token calls time
    /// out, fail, fail.
    public func script(_ fault: SimulatedProviderFault, on endpoint: SimulatedProviderEndpoint, times: Int = 1) {
        guard times > 0 else { return }
        state.withLock { $0.faults[endpoint, default: []].append((fault, times)) }
    }

    /// Replaces the DPoP nonce (RFC 9449 §8): a proof carrying the old one is answered with
    /// `use_dpop_nonce` and the new one. Only meaningful with ``SimulatedProviderConfiguration/dpop``.
    public func rotateDPoPNonce() {
        state.withLock { $0.dpopNonce = try? RandomToken.generate(byteCount: 16) }
    }

    /// Moves this provider's clock by `offset` from where it is (positive: ahead of the injected
    /// wall clock); tokens, proofs and `Date` headers follow it. For testing a device whose clock
    /// is off.
    public func moveClock(by offset: Duration) {
        let seconds = Double(offset.components.seconds) + Double(offset.components.attoseconds) * 1e-18
        clockShift.seconds.withLock { $0 += seconds }
        changes.notify()
    }

    /// How far this provider's clock is from the injected wall clock (``moveClock(by:)``).
    public var clockOffset: Duration {
        .milliseconds(Int64((clockShift.seconds.withLock { $0 } * 1000).rounded()))
    }

    /// Issues every later token as `Bearer` while still checking proofs: a provider that stops
    /// sender-constraining mid-session. Only meaningful with ``SimulatedProviderConfiguration/dpop``.
    public func stopBindingTokens() {
        state.withLock { $0.dpopIssuesBearer = true }
    }

    /// Forgets every fault not shown yet.
    public func clearScriptedFaults() {
        state.withLock { $0.faults = [:] }
    }

    /// How many calls to `endpoint` will still be answered by a scripted fault.
    public func pendingFaultCount(on endpoint: SimulatedProviderEndpoint) -> Int {
        state.withLock { $0.faults[endpoint]?.reduce(0) { $0 + $1.remaining } ?? 0 }
    }

    // MARK: Signing keys

    /// Replaces the signing key with the next pre-generated one (or a freshly generated one) under a new `kid`.
    ///
    /// - Parameter grace: how long the previous key stays in the JWKS, on the wall clock; `nil`
    ///   uses ``SimulatedProviderConfiguration/signingKeyGracePeriod``, `.zero` drops it at once
    ///   (tokens signed with it then fail with an unknown `kid`).
    /// - Returns: the new key id.
    @discardableResult
    public func rotateSigningKey(retainPreviousFor grace: Duration? = nil) throws(CryptoError) -> String {
        let key: SimulatedProviderState.SigningKey.Signer
        if configuration.idTokenSigningAlgorithm == .es256 {
            key = .p256(try P256PrivateKey.generate())
        } else if let spare = state.withLock({ $0.spareKeys.isEmpty ? nil : $0.spareKeys.removeFirst() }) {
            key = .rsa(spare)
        } else {
            key = .rsa(try RSAPrivateKey.generate(bitCount: 2048))
        }
        let grace = grace ?? configuration.signingKeyGracePeriod
        return state.withLock { $0.installSigningKey(key, grace: grace, now: now()) }
    }

    /// The `kid` new id_tokens are signed under.
    public var currentKeyID: String {
        state.withLock { $0.currentKey.keyID }
    }

    /// The `kid`s the JWKS lists right now, current key first.
    public var publishedKeyIDs: [String] {
        state.withLock { state in state.publishedKeys(now: now()).map(\.keyID) }
    }

    /// Signs an id_token for `subject` with the current key, outside any flow; for testing verifiers.
    ///
    /// The token carries the configured issuer and audience, `nonce` and `at_hash` (for
    /// `accessToken`) when given, the user's registered identity claims, and the `tampering` asked for.
    public func signedIDToken(
        subject: String, nonce: String? = nil, accessToken: String? = nil,
        tampering: SimulatedProviderFault.IDTokenTampering? = nil, authTime: Date? = nil, acr: String? = nil
    ) throws(CryptoError) -> String {
        try state.withLock { (state) throws(CryptoError) -> String in
            try state.makeIDToken(
                subject: subject, clientID: configuration.clientID, nonce: nonce, accessToken: accessToken, now: now(),
                tampering: tampering, authTime: authTime, acr: acr)
        }
    }

    // MARK: OpenID Connect beyond sign-in

    /// A `ProviderConfiguration` with every endpoint this provider serves, as its discovery
    /// document lists them (UserInfo, end-session and device authorization included), on the
    /// 1pass.dev profile's paths.
    public func providerConfiguration() throws(ConfigurationError) -> ProviderConfiguration {
        var provider = try ProviderConfiguration.onePass(
            clientID: configuration.clientID, redirectURI: configuration.redirectURI, issuer: configuration.issuer)
        provider.userInfoEndpoint = URL(string: configuration.url(for: SimulatedProviderEndpoint.userInfo.path))
        provider.endSessionEndpoint = URL(string: configuration.url(for: SimulatedProviderEndpoint.endSessionPath))
        provider.deviceAuthorizationEndpoint = URL(string: configuration.url(for: SimulatedProviderEndpoint.deviceAuthorization.path))
        provider.idTokenSigningAlgorithms = [configuration.idTokenSigningAlgorithm]
        return provider
    }

    /// Every authorization request played through ``authorize(_:subject:decision:)``, with the
    /// options it carried and how it was answered; no secret.
    public var authorizationRecords: [SimulatedProviderAuthorizationRecord] {
        state.withLock { $0.authorizationRecords }
    }

    /// Whether the simulated browser holds a session for `subject`, so a sign-in without
    /// `prompt=login` or an exceeded `max_age` does not authenticate again (and `prompt=none` succeeds).
    public func hasBrowserSession(for subject: String) -> Bool {
        state.withLock { $0.browserSessions[subject] != nil }
    }

    /// Plays the end-session page (RP-Initiated Logout 1.0) for a URL the app opened: ends the
    /// browser session of the hint's subject (every one without a hint) and returns the
    /// post-logout redirect with `state`, or nil when none was asked for.
    ///
    /// - Throws: when the provider would show an error page instead: an unknown client, a hint it
    ///   did not sign for the client, an unregistered redirect URI, a repeated parameter.
    public func endSession(_ endSessionURL: URL) throws(SimulatedProviderEndSessionError) -> URL? {
        try state.withLock { (state) throws(SimulatedProviderEndSessionError) -> URL? in
            try state.endSession(endSessionURL, now: now())
        }
    }

    /// Every visit to the end-session endpoint that ended a session, in order; no secret.
    public var endSessionRecords: [SimulatedProviderEndSessionRecord] {
        state.withLock { $0.endSessionRecords }
    }

    /// Makes the UserInfo endpoint answer with this `sub` instead of the access token's (nil
    /// restores the truth), to test the OIDC Core §5.3.2 check.
    public func answerUserInfo(asSubject subject: String?) {
        state.withLock { $0.userInfoSubjectOverride = subject }
    }

    /// Makes the UserInfo endpoint answer as a signed JWT (`application/jwt`, OpenID Connect Core
    /// §5.3.2) with `iss` and `aud`, signed with the current key, as `signing` says; `nil`
    /// restores plain JSON.
    public func signUserInfo(_ signing: SimulatedUserInfoSigning?) {
        state.withLock { $0.userInfoSigning = signing }
    }

    /// Makes the discovery document name this `issuer` instead of the provider's own (`nil`
    /// restores the truth), to test OpenID Connect Discovery §4.3's issuer check.
    public func answerDiscovery(asIssuer issuer: String?) {
        state.withLock { $0.discoveryIssuerOverride = issuer }
    }

    /// Makes the WebFinger endpoint answer as `answer` says (``SimulatedWebFingerAnswer/truth``
    /// restores the truth), to test OpenID Connect Discovery §2's issuer discovery.
    public func answerWebFinger(_ answer: SimulatedWebFingerAnswer) {
        state.withLock { $0.webFingerAnswer = answer }
    }

    /// Every request the registration endpoint received, in order, with how it answered; no secret.
    public var registrationRecords: [SimulatedProviderRegistrationRecord] {
        state.withLock { $0.registrationRecords }
    }

    /// Whether a client registered through the registration endpoint exists (not deleted).
    public func isRegistered(clientID: String) -> Bool {
        state.withLock { $0.registeredClients[clientID] != nil }
    }

    /// Scripts how the person answers the next device authorization request.
    public func scriptDeviceAuthorization(_ script: SimulatedProviderDeviceScript) {
        state.withLock { $0.deviceScripts.append(script) }
    }

    /// The person enters `userCode` on the verification page as `subject` and decides. Returns
    /// false when no pending, unexpired device authorization has that code.
    @discardableResult
    public func decideDeviceAuthorization(
        userCode: String, subject: String, decision: SimulatedProviderDecision = .approve
    ) -> Bool {
        state.withLock { $0.decideDevice(userCode: userCode, subject: subject, decision: decision, now: now()) }
    }

    // MARK: Grants and devices

    /// Revokes every grant `subject` holds, as an administrator would; later refreshes get `invalid_grant`.
    public func revokeAllGrants(of subject: String) {
        state.withLock { state in
            for (grantID, grant) in state.grants.sorted(by: { $0.key < $1.key }) where grant.subject == subject {
                state.revokeGrant(grantID, reason: .administrative)
            }
        }
    }

    /// Replaces the server's secret for a device, so the secret the client holds becomes invalid.
    ///
    /// - Returns: false when the device is unknown.
    @discardableResult
    public func invalidateDeviceSecret(deviceUUID: String) -> Bool {
        state.withLock { state in
            guard state.devices[deviceUUID] != nil else { return false }
            state.devices[deviceUUID]?.secret = nil
            return true
        }
    }

    /// The subject a device uuid is registered to, if any.
    public func deviceOwner(deviceUUID: String) -> String? {
        state.withLock { $0.devices[deviceUUID]?.subject }
    }

    // MARK: Guest devices

    /// Forgets a guest device as a server-side reset would: the secret the client holds stops
    /// matching (the next bootstrap presenting it gets `401 invalid_device_secret`) and the keys of
    /// its guest stop working.
    ///
    /// - Returns: false when no guest device has this id.
    @discardableResult
    public func forgetGuestDevice(deviceID: String) -> Bool {
        state.withLock { $0.forgetGuestDevice(deviceID) }
    }

    /// Replaces the server's secret for a guest device, so the secret the client holds is refused;
    /// the guest's keys keep working until they expire.
    ///
    /// - Returns: false when no guest device has this id.
    @discardableResult
    public func invalidateGuestDeviceSecret(deviceID: String) -> Bool {
        state.withLock { state in
            guard state.guestDevices[deviceID] != nil else { return false }
            state.guestDevices[deviceID]?.secret = nil
            return true
        }
    }

    /// The id of the guest user a device is bound to, if any.
    public func guestUserID(deviceID: String) -> Int? {
        state.withLock { $0.guestDevices[deviceID]?.userID }
    }

    /// The display name a guest device sent with its last bootstrap, if any.
    public func guestDeviceName(deviceID: String) -> String? {
        state.withLock { $0.guestDevices[deviceID]?.name }
    }

    /// How many guest devices the provider knows.
    public var guestDeviceCount: Int {
        state.withLock { $0.guestDevices.count }
    }

    /// How many devices were registered through the exchange endpoint.
    public var registeredDeviceCount: Int {
        state.withLock { $0.devices.count }
    }

    /// Whether the provider would accept this refresh token now (current in its chain, chain not revoked).
    ///
    /// A replay that ``SimulatedProviderConfiguration/refreshTokenReuseGracePeriod`` would forgive
    /// does not count: only the current token of a chain is active.
    public func isRefreshTokenActive(_ refreshToken: String) -> Bool {
        state.withLock { $0.isRefreshTokenActive(refreshToken, now: now()) }
    }

    /// Whether the provider would accept this refresh token now; takes the token as the session stores it.
    public func isRefreshTokenActive(_ refreshToken: Secret) -> Bool {
        isRefreshTokenActive(refreshToken.value)
    }

    /// Whether the provider would accept this refresh token now; `false` for none (a session the
    /// provider issued no refresh token for).
    public func isRefreshTokenActive(_ refreshToken: Secret?) -> Bool {
        refreshToken.map(isRefreshTokenActive) ?? false
    }

    /// Whether the provider would accept this access token now (not expired, chain not revoked).
    public func isAccessTokenActive(_ accessToken: String) -> Bool {
        state.withLock { $0.isAccessTokenActive(accessToken, now: now()) }
    }

    /// Whether the provider would accept this access token now; takes the token as the session hands it out.
    public func isAccessTokenActive(_ accessToken: Secret) -> Bool {
        isAccessTokenActive(accessToken.value)
    }

    /// Every chain revoked so far, in order.
    public var revokedChains: [SimulatedProviderRevokedChain] {
        state.withLock { $0.revokedChains }
    }

    /// How many grants are not revoked.
    public var activeGrantCount: Int {
        state.withLock { $0.grants.values.count { !$0.isRevoked } }
    }

    // MARK: Request log

    /// Every request received, in order, without secrets.
    public var requestLog: [SimulatedProviderLogEntry] {
        state.withLock { $0.log }
    }

    /// How many requests reached `endpoint`, faulted ones included.
    public func requestCount(for endpoint: SimulatedProviderEndpoint) -> Int {
        state.withLock { $0.requestCounts[endpoint] ?? 0 }
    }

    /// How many token requests carried this `grant_type` (e.g. `refresh_token`).
    public func requestCount(grantType: String) -> Int {
        state.withLock { $0.grantTypeCounts[grantType] ?? 0 }
    }

    /// How many requests reached the token endpoint.
    public var tokenRequestCount: Int {
        requestCount(for: .token)
    }
}

/// The seconds a ``SimulatedProvider``'s clock is moved by, shared with its `now`.
private final class ClockShift: Sendable {
    let seconds = Locked<TimeInterval>(0)
}
