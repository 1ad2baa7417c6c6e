import Foundation

extension ProviderClient {
    /// Sends one request to `endpoint`: through the middleware chain, outermost first, then the
    /// transport. The one function every request of the client goes through.
    func send(_ request: HTTPRequest, to endpoint: ProviderEndpoint) async throws(ProviderError) -> HTTPResponse {
        // No middleware (the default): the transport directly, with nothing built per request.
        if middleware.isEmpty { return try await sendThroughTransport(request) }
        return try await send(request, to: endpoint, from: 0)
    }

    /// The chain from the middleware at `index` on.
    private func send(_ request: HTTPRequest, to endpoint: ProviderEndpoint, from index: Int) async throws(ProviderError)
        -> HTTPResponse
    {
        guard index < middleware.count else { return try await sendThroughTransport(request) }
        return try await middleware[index].intercept(request, endpoint: endpoint) { (next) async throws(ProviderError) in
            try await send(next, to: endpoint, from: index + 1)
        }
    }

    private func sendThroughTransport(_ request: HTTPRequest) async throws(ProviderError) -> HTTPResponse {
        do {
            return try await transport.send(request)
        } catch {
            throw .transport(error)
        }
    }
}
