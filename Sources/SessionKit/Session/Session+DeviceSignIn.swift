import Foundation
import SessionKitJOSE

extension Session {
    /// Signs in with the device authorization grant (RFC 8628), for a device where no browser can
    /// come back to the app (a CLI on a server, a TV): the provider issues a code, the presenter
    /// shows it (``HandoffPresenter/presentDeviceCode(_:)``), the person approves on another
    /// device, and the session polls the token endpoint on the injected clock meanwhile, at the
    /// interval the provider names (`slow_down` adds 5 s for good). Returns once the tokens are
    /// verified, like ``signIn()``: the id_token is checked as any sign-in's, without a nonce
    /// (this grant has none). Cancelling the calling task cancels the sign-in.
    ///
    /// The scopes are the configured ones with the configuration's `offline_access` policy. The
    /// stages are the same as a browser sign-in's: handoff while the person decides, verifying,
    /// active.
    ///
    /// - Throws: ``SessionError/unsupported(_:)`` at once when the provider has no device
    ///   authorization endpoint, or (after the code was issued) when the presenter cannot show a
    ///   code; ``SessionError/authorizationDenied(_:)`` (`access_denied`),
    ///   ``SessionError/deviceCodeExpired``, `verificationFailed(.missingIDToken)` (see
    ///   ``SessionConfiguration/requireIDTokenForDeviceSignIn``), and what ``signIn()`` throws.
    @discardableResult
    public func signInWithDeviceCode() async throws(SessionError) -> SessionIdentity {
        guard configuration.provider.deviceAuthorizationEndpoint != nil else {
            throw .unsupported(.deviceAuthorization)
        }
        let key = try dpop.makeSignInKey()
        let result = await suspend { machine, id, waiter in
            // Kept only when the machine admits this sign-in: a refused one leaves the one under way.
            let actions = machine.deviceSignIn(id: id, waiter: waiter)
            let admitted = actions.contains { action in
                if case .requestDeviceCode = action { true } else { false }
            }
            if admitted { deviceSignInKeySlot.withLock { $0 = key } }
            return actions
        }
        if case .tokens(let tokens) = result { return tokens.identity }
        await discardSignInKey(key)
        switch result {
        case .tokens(let tokens): return tokens.identity
        case .done, .restored: throw .cancelled
        case .failed(let error): throw error
        }
    }

    /// The DPoP key of the device sign-in under way.
    private var deviceSignInKey: DPoPSignInKey? {
        deviceSignInKeySlot.withLock { $0 }
    }

    /// Polls the token endpoint once and tells the machine what it answered.
    func pollDeviceToken(_ authorization: DeviceAuthorization, generation: UInt64) async {
        let answer: DevicePollAnswer
        do throws(ProviderError) {
            let client = signInClient(deviceSignInKey)
            answer = .tokens(
                try await DPoPNonceStep.sendingOnceMoreForNonce(at: .token) { () async throws(ProviderError) in
                    try await client.pollDeviceToken(authorization)
                })
        } catch {
            answer = DevicePollAnswer(.failure(error))
        }
        let now = wallClock()
        modify { $0.devicePollAnswered(answer, now: now, generation: generation) }
    }

    func requestDeviceCode(generation: UInt64) async {
        let scopes = configuration.authorizationOptions.scopes(from: configuration.provider.scopes)
        let result: Result<DeviceAuthorization, SessionError>
        do throws(ProviderError) {
            let client = signInClient(deviceSignInKey)
            let requested = try await DPoPNonceStep.sendingOnceMoreForNonce(at: .deviceAuthorization) {
                () async throws(ProviderError) in try await client.requestDeviceAuthorization(scopes: scopes)
            }
            if let authorization = requested {
                result = .success(authorization)
            } else {
                result = .failure(.unsupported(.deviceAuthorization))
            }
        } catch {
            result = .failure(.provider(error))
        }
        let now = wallClock()
        modify { $0.deviceCodeIssued(result, now: now, generation: generation) }
    }

    /// Verifies the approved device sign-in's tokens, makes them durable, then tells the machine.
    func verifyDeviceSignIn(_ response: TokenResponse, generation: UInt64) async {
        let error: SessionError
        do throws(SessionError) {
            let key = deviceSignInKey
            let tokens = bind(try await verifiedDeviceTokens(response), to: key)
            try await storeSignedIn(tokens, key: key)
            modify { $0.exchangeSucceeded(tokens, generation: generation) }
            return
        } catch let failure {
            error = failure
        }
        if let key = deviceSignInKey { await dpop.keyStore.deleteKey(key.stored) }
        modify { $0.exchangeFailed(error, generation: generation) }
    }

    private func verifiedDeviceTokens(_ response: TokenResponse) async throws(SessionError) -> VerifiedTokens {
        do throws(SessionError) {
            if response.idToken != nil {
                return try await verifier.verifySignIn(response, nonce: nil, now: wallClock())
            }
            guard !configuration.requireIDTokenForDeviceSignIn else { throw .verificationFailed(.missingIDToken) }
            // The token response came straight from the token endpoint; the UserInfo answer to its
            // access token is the provider's word on whose it is.
            let info: UserInfo?
            do throws(UserInfoFetchError) {
                let client = self.client
                info = try await DPoPNonceStep.sendingOnceMoreForNonce { () async throws(UserInfoFetchError) in
                    try await client.fetchUserInfoNamingSubject(accessToken: response.accessToken)
                }
            } catch {
                throw SessionError(error)
            }
            guard let info else { throw .unsupported(.identityWithoutIDToken) }
            return verifier.acceptDeviceSignIn(response, identifiedBy: info, now: wallClock())
        } catch {
            // A rejected response's refresh token is valid at the provider: queue it for revocation.
            if let refreshToken = response.refreshToken {
                _ = await update { $0.pendingRevocations.append(refreshToken) }
                revocationsQueued()
            }
            throw error
        }
    }
}

extension SessionError {
    /// A UserInfo fetch's failure as the session reports it.
    init(_ error: UserInfoFetchError) {
        switch error {
        case .provider(let failure): self = .provider(failure)
        case .rejected(let failure): self = .userInfoRejected(failure)
        }
    }
}
