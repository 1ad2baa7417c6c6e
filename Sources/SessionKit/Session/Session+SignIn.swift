import Foundation
import SessionKitJOSE

extension Session {
    /// Exchanges the code, verifies the tokens, makes them durable, then tells the machine.
    func runExchange(code: Secret, attempt: SignInAttempt, generation: UInt64) async {
        let error: SessionError
        do throws(SessionError) {
            let tokens = try await exchangeAndStore(code: code, attempt: attempt)
            perform(core.withLock { $0.exchangeSucceeded(tokens, generation: generation) })
            return
        } catch let failure {
            error = failure
        }
        perform(core.withLock { $0.exchangeFailed(error, generation: generation) })
    }

    private func exchangeAndStore(code: Secret, attempt: SignInAttempt) async throws(SessionError) -> VerifiedTokens {
        let response: TokenResponse
        do {
            response = try await client.exchangeCode(code, codeVerifier: Secret(attempt.codeVerifier), redirectURI: attempt.redirectURI)
        } catch {
            throw .provider(error)
        }
        let tokens: VerifiedTokens
        do {
            tokens = try await verifier.verifySignIn(response, nonce: attempt.nonce, now: wallClock())
        } catch {
            // A rejected response's refresh token is valid at the provider: queue it for revocation.
            if let refreshToken = response.refreshToken {
                _ = await update { $0.pendingRevocations.append(refreshToken) }
                startBackgroundRevoker()
            }
            throw error
        }
        let stored = tokens.stored()
        if case .failure(let error) = await update({ record in
            if let old = record.session { record.pendingRevocations.append(old.refreshToken) }
            record.session = stored
        }) {
            throw .storage(error)
        }
        return tokens
    }
}
