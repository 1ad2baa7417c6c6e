/// RFC 9449's nonce step (§8, §9) for the requests the session sends once: the code exchange,
/// a device-code poll, the device authorization, a revocation, UserInfo.
///
/// ``DPoPMiddleware`` signs the proof, keeps every nonce an answer carries and classifies the
/// answer; a `use_dpop_nonce` refusal that gave a new nonce reaches the sender as
/// ``DPoPFailure/Code/useNonce``. This is where the sender acts on it: it sends the same request
/// once more (the middleware signs a fresh proof carrying the nonce now kept), and a second
/// demand ends the request as the provider's `use_dpop_nonce` answer. Never a loop. The refresh
/// procedure makes the same decision as a step of its own
/// (``RefreshProcedure/Step/retryRefreshWithNonce(_:)``), since its retry must present the same
/// refresh token and read an `invalid_grant` after it apart.
enum DPoPNonceStep {
    /// The answer to `send`, sent a second time when the first was refused for a nonce the
    /// server then gave.
    static func sendingOnceMoreForNonce<Value>(
        at endpoint: ProviderEndpoint, _ send: () async throws(ProviderError) -> Value
    ) async throws(ProviderError) -> Value {
        do throws(ProviderError) {
            return try await send()
        } catch let error where error.asksForNonceRetry {
            do throws(ProviderError) {
                return try await send()
            } catch let error where error.asksForNonceRetry {
                throw refusal(at: endpoint)
            }
        }
    }

    /// ``sendingOnceMoreForNonce(at:_:)`` for a UserInfo request.
    static func sendingOnceMoreForNonce<Value>(
        _ send: () async throws(UserInfoFetchError) -> Value
    ) async throws(UserInfoFetchError) -> Value {
        do throws(UserInfoFetchError) {
            return try await send()
        } catch .provider(let error) where error.asksForNonceRetry {
            do throws(UserInfoFetchError) {
                return try await send()
            } catch .provider(let error) where error.asksForNonceRetry {
                throw .provider(refusal(at: .userInfo))
            }
        }
    }

    /// What a nonce demand answering the one retry is: the provider's own refusal, a 400 from the
    /// authorization server's endpoints (§8), a 401 from UserInfo, which is a resource (§9).
    static func refusal(at endpoint: ProviderEndpoint) -> ProviderError {
        .http(status: endpoint == .userInfo ? 401 : 400, error: "use_dpop_nonce", retryAfterSeconds: nil, excerpt: "")
    }
}

extension ProviderError {
    /// Whether this is the middleware's signal that a request may be sent once more with the
    /// nonce the server just gave (``DPoPFailure/Code/useNonce``).
    var asksForNonceRetry: Bool {
        guard case .dpop(let failure) = self else { return false }
        return failure.code == .useNonce
    }
}
