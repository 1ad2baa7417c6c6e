import Foundation
import SessionKitCore

/// The redirect URIs one sign-in attempt's authorization request was rendered for.
///
/// A loopback presenter picks its redirect URI per attempt (RFC 8252 §7.3); the session must
/// then accept the callback at that URI only and send the same URI with the code exchange
/// (RFC 6749 §4.1.3). The renderer records each URI it rendered, so the session never takes a
/// redirect URI from the callback itself.
final class HandoffRedirects: Sendable {
    private let renderer: @Sendable (URL) -> URL
    private let rendered = Locked<[URL]>([])

    init(renderer: @escaping @Sendable (URL) -> URL) {
        self.renderer = renderer
    }

    /// The authorization URL for `redirectURI`, which is remembered as one this attempt may answer at.
    func render(_ redirectURI: URL) -> URL {
        rendered.withLock { $0.append(redirectURI) }
        return renderer(redirectURI)
    }

    /// The rendered redirect URI `callback` arrived at (same scheme, host, port and path), if any.
    func redirectURI(matching callback: URL) -> URL? {
        let key = Self.matchKey(callback)
        return rendered.withLock { uris in uris.last { Self.matchKey($0) == key } }
    }

    /// `http` on `127.0.0.1` or `[::1]`, with a port: what RFC 8252 §7.3 calls a loopback redirect.
    static func isLoopbackRedirect(_ url: URL) -> Bool {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            components.scheme?.lowercased() == "http", components.port != nil,
            components.query == nil, components.fragment == nil
        else { return false }
        return components.host == "127.0.0.1" || components.host == "[::1]" || components.host == "::1"
    }

    /// What two URLs must share for a callback to match a redirect URI: scheme, host, port, path.
    static func matchKey(_ url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? ""
        let port = components?.port.map { ":\($0)" } ?? ""
        return "\(components?.scheme?.lowercased() ?? "")://\(components?.host?.lowercased() ?? "")\(port)\(path.isEmpty ? "/" : path)"
    }
}
