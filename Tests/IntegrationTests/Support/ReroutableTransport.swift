import Foundation
import SessionKit
import Synchronization

/// Real HTTP to the provider, with a log of what was sent and a switch that sends requests to
/// another port instead (nothing listening, or a listener that never answers).
final class ReroutableTransport: HTTPTransport {
    struct Entry: Sendable {
        var method: String
        var url: URL
        /// `grant_type` of a token request.
        var grantType: String?
        /// Whether the request went to the detour instead of the provider.
        var rerouted: Bool
    }

    private struct Detour: Sendable {
        var port: UInt16
        var transport: any HTTPTransport
    }

    private let provider: any HTTPTransport
    private let state = Locked<(detour: Detour?, log: [Entry])>((nil, []))
    private let stripping = Locked(false)

    /// Removes `id_token` from every later refresh answer, as a provider may (OIDC Core §12.2).
    func stripIDTokensFromRefreshes() {
        stripping.withLock { $0 = true }
    }

    init(provider: any HTTPTransport) {
        self.provider = provider
    }

    /// Sends every later request to 127.0.0.1:`port` through `transport`.
    func reroute(toPort port: UInt16, through transport: any HTTPTransport) {
        state.withLock { $0.detour = Detour(port: port, transport: transport) }
    }

    /// Sends every later request to the provider again.
    func restore() {
        state.withLock { $0.detour = nil }
    }

    var log: [Entry] { state.withLock { $0.log } }

    /// Refresh-token grants sent so far, to the provider or the detour.
    var refreshRequests: [Entry] { log.filter { $0.grantType == "refresh_token" } }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let grantType = request.body.flatMap { body in
            String(decoding: body, as: UTF8.self).split(separator: "&")
                .first { $0.hasPrefix("grant_type=") }
                .map { String($0.dropFirst("grant_type=".count)) }
        }
        let detour = state.withLock { state -> Detour? in
            state.log.append(Entry(method: request.method, url: request.url, grantType: grantType, rerouted: state.detour != nil))
            return state.detour
        }
        guard let detour else {
            let response = try await provider.send(request)
            guard grantType == "refresh_token", stripping.withLock({ $0 }), response.status == 200,
                var object = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any],
                object.removeValue(forKey: "id_token") != nil,
                let body = try? JSONSerialization.data(withJSONObject: object)
            else { return response }
            var stripped = response
            stripped.body = body
            return stripped
        }
        var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)!
        components.host = "127.0.0.1"
        components.port = Int(detour.port)
        var rerouted = request
        rerouted.url = components.url!
        return try await detour.transport.send(rerouted)
    }
}
