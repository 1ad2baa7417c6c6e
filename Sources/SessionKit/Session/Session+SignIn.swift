import Foundation
import SessionKitCore
import SessionKitJOSE

extension Session {
    /// A sign-in attempt's parameters from the CSPRNG, and its authorization URL with `options`.
    func makeSignInAttempt(options: AuthorizationRequestOptions) throws(SessionError) -> SignInAttempt {
        let pkce: PKCE
        let state: String
        let nonce: String
        do {
            pkce = try PKCE.generate()
            state = try RandomToken.generate(byteCount: 32)
            nonce = try RandomToken.generate(byteCount: 32)
        } catch {
            throw .randomSourceFailed
        }
        let key = try dpop.makeSignInKey()
        let url: URL
        do {
            url = try signInClient(key).authorizationURL(codeChallenge: pkce.challenge, state: state, nonce: nonce, options: options)
        } catch {
            throw .invalidRequestOptions(error)
        }
        return SignInAttempt(
            authorizationURL: url, state: state, nonce: nonce, codeVerifier: pkce.verifier, codeChallenge: pkce.challenge,
            options: options, dpopKey: key)
    }

    /// Exchanges the code, verifies the tokens, makes them durable, then tells the machine.
    func runExchange(code: Secret, attempt: SignInAttempt, generation: UInt64) async {
        let error: SessionError
        do throws(SessionError) {
            let tokens = try await exchangeAndStore(code: code, attempt: attempt)
            modify { $0.exchangeSucceeded(tokens, generation: generation) }
            return
        } catch let failure {
            error = failure
        }
        // Nothing was stored with the sign-in's key: it is not kept where it would be forgotten.
        if let key = attempt.dpopKey { await dpop.keyStore.deleteKey(key.stored) }
        modify { $0.exchangeFailed(error, generation: generation) }
    }

    private func exchangeAndStore(code: Secret, attempt: SignInAttempt) async throws(SessionError) -> VerifiedTokens {
        let response: TokenResponse
        let client = signInClient(attempt.dpopKey)
        do throws(ProviderError) {
            response = try await DPoPNonceStep.sendingOnceMoreForNonce(at: .token) { () async throws(ProviderError) in
                try await client.exchangeCode(code, codeVerifier: Secret(attempt.codeVerifier), redirectURI: attempt.redirectURI)
            }
        } catch {
            throw .provider(error)
        }
        let tokens: VerifiedTokens
        do {
            tokens = bind(
                try await verifier.verifySignIn(response, nonce: attempt.nonce, options: attempt.options, now: wallClock()),
                to: attempt.dpopKey)
        } catch {
            // A rejected response's refresh token is valid at the provider: queue it for revocation.
            if let refreshToken = response.refreshToken {
                _ = await update { $0.pendingRevocations.append(refreshToken) }
                revocationsQueued()
            }
            throw error
        }
        try await storeSignedIn(tokens, key: attempt.dpopKey)
        return tokens
    }

    /// Makes a verified sign-in durable; an earlier session's refresh token is queued for
    /// revocation. From then on, requests are signed with the sign-in's DPoP key.
    func storeSignedIn(_ tokens: VerifiedTokens, key: DPoPSignInKey?) async throws(SessionError) {
        let stored = tokens.stored()
        let replaced: StoredDPoPKey?
        switch await updateReporting({ record -> StoredDPoPKey? in
            let old = record.session?.dpopKey
            record.storeSignedIn(stored)
            return old
        }) {
        case .success(let old): replaced = old
        case .failure(let error): throw .storage(error)
        }
        adopt(key, for: tokens)
        // The earlier session's key goes with it (its refresh token waits for revocation).
        if let replaced, replaced.thumbprint != stored.dpopKey?.thumbprint { await dpop.keyStore.deleteKey(replaced) }
    }
}
