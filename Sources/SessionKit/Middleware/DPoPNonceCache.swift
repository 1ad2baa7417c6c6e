public import Foundation
import SessionKitCore
public import SessionKitJOSE

/// The latest `DPoP-Nonce` of each server (RFC 9449 §8, §9), kept apart by origin: the
/// authorization server's nonce is never sent to a resource server, nor one resource server's to
/// another.
///
/// Every response that carries a nonce replaces the one kept for its origin, so a stale nonce
/// never blocks: the answer that refuses it carries its successor.
public final class DPoPNonceCache: Sendable {
    private let nonces = Locked<[String: DPoPNonce]>([:])

    /// An empty cache.
    public init() {}

    /// The nonce kept for `url`'s origin, if any.
    public func nonce(for url: URL) -> DPoPNonce? {
        guard let origin = Self.origin(of: url) else { return nil }
        return nonces.withLock { $0[origin] }
    }

    /// Keeps `nonce` as the latest for `url`'s origin.
    public func remember(_ nonce: DPoPNonce, for url: URL) {
        guard let origin = Self.origin(of: url) else { return }
        nonces.withLock { $0[origin] = nonce }
    }

    /// Forgets every nonce (a new session, a new key).
    public func removeAll() {
        nonces.withLock { $0.removeAll() }
    }

    /// `scheme://host:port`, lowercase, with the scheme's default port made explicit so that
    /// `https://as.example` and `https://as.example:443` are one server.
    static func origin(of url: URL) -> String? {
        guard let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty else { return nil }
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return scheme + "://" + host + ":" + String(port)
    }
}
