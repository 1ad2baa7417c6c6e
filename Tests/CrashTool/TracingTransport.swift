import Foundation
import SessionKit

/// Sends through another transport, counts token requests and, when tracing, prints a line as
/// each request leaves and as its answer arrives — never a URL's query, a header or a body.
///
/// With a tag, every request carries it in an `X-Crash-Tag` header, so a test server can tell
/// this process's requests from those of a process it already killed.
final class TracingTransport: HTTPTransport {
    static let tagHeader = "X-Crash-Tag"

    private let base: any HTTPTransport
    private let trace: Bool
    private let tag: String?
    private let counts = Locked<[String: Int]>([:])

    init(base: any HTTPTransport, trace: Bool, tag: String?) {
        self.base = base
        self.trace = trace
        self.tag = tag
    }

    /// How many requests of a kind were sent, e.g. `token:refresh_token`.
    func count(_ kind: String) -> Int {
        counts.withLock { $0[kind] ?? 0 }
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        var request = request
        if let tag { request.headers.append((Self.tagHeader, tag)) }
        let kind = Self.kind(of: request)
        counts.withLock { $0[kind, default: 0] += 1 }
        if trace { ToolOutput.emit("io send \(kind)") }
        do {
            let response = try await base.send(request)
            if trace { ToolOutput.emit("io recv \(kind) \(response.status)") }
            return response
        } catch {
            if trace { ToolOutput.emit("io fail \(kind)") }
            throw error
        }
    }

    /// A short name for the endpoint: its last path segment, the grant type for token requests.
    static func kind(of request: HTTPRequest) -> String {
        let segments = request.url.path.split(separator: "/")
        if segments.contains("connected_apps") { return "disconnect" }
        let name = segments.last.map(String.init) ?? "root"
        guard name == "token", let body = request.body else { return name }
        let grant = String(decoding: body, as: UTF8.self).split(separator: "&")
            .first { $0.hasPrefix("grant_type=") }
            .map { String($0.dropFirst("grant_type=".count)) }
        return grant.map { "token:\($0)" } ?? name
    }
}
