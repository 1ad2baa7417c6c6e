/// One layer of cross-cutting request work between the provider client and the transport:
/// client authentication, a proof of possession and the nonces it carries, the app's own headers.
///
/// Every request ``ProviderClient`` sends to the provider — token (code exchange, refresh,
/// device-code polls), revocation, UserInfo, device authorization, disconnect, signing keys and
/// the guest bootstrap — passes through the configured chain
/// (``SessionConfiguration/requestMiddleware``), the first middleware outermost: it sees the
/// request first and the response last. Each one may change the request, answer without calling
/// `next`, call `next` once, or again for a retry; `next` sends the request through the rest of
/// the chain and then the ``HTTPTransport``.
///
/// Errors are ``ProviderError``s, as the provider client reports them: a transport failure
/// arrives from `next` as ``ProviderError/transport(_:)``, and what a middleware throws reaches
/// the caller unchanged, classified by the same retry policy (a `.transport(.connectionFailed)`
/// is transient, a `.http(status: 401, …)` permanent). A middleware must never put a secret into
/// an error it throws.
///
/// ```swift
/// struct UserAgent: RequestMiddleware {
///     func intercept(
///         _ request: HTTPRequest, endpoint: ProviderEndpoint,
///         next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
///     ) async throws(ProviderError) -> HTTPResponse {
///         var request = request
///         request.headers.append(("User-Agent", "ExampleApp/1.0"))
///         return try await next(request)
///     }
/// }
/// ```
public protocol RequestMiddleware: Sendable {
    /// Handles one request to `endpoint`, calling `next` to send it on.
    func intercept(
        _ request: HTTPRequest, endpoint: ProviderEndpoint,
        next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
    ) async throws(ProviderError) -> HTTPResponse

    /// Parameters this middleware adds to the authorization request, which reaches the provider
    /// through the browser rather than through the chain (DPoP's `dpop_jkt`). Empty by default.
    func authorizationParameters() -> [(name: String, value: String)]
}

extension RequestMiddleware {
    /// No parameters: most middleware has nothing to say on the authorization request.
    public func authorizationParameters() -> [(name: String, value: String)] { [] }
}
