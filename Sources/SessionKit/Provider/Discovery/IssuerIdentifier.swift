public import Foundation

/// What a person typed to name their account or provider, normalised as OpenID Connect Discovery
/// 1.0 §2.1 says, ready for a WebFinger query (RFC 7033) of its host.
///
/// - `acct:alice@example.com` stays as it is;
/// - `alice@example.com` (an `@` and no scheme, path, port, query or fragment) becomes
///   `acct:alice@example.com`;
/// - anything else without a scheme gets `https://` (`example.com:8080/joe` becomes
///   `https://example.com:8080/joe`);
/// - a URL's fragment is dropped.
///
/// XRI identifiers (starting with `=`, `@` or `!`) are refused.
public struct IssuerIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The normalised identifier: the WebFinger `resource`.
    public let resource: String
    /// The host (with its port, when one was given) whose `/.well-known/webfinger` answers.
    public let authority: String

    /// Normalises `input` (Discovery §2.1.2).
    public init(_ input: String) throws(ConfigurationError) {
        let text = input.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { throw .invalidIdentifier("the identifier is empty") }
        guard let first = text.first, !"=@!".contains(first) else {
            throw .invalidIdentifier("XRI identifiers are not supported")
        }
        if text.lowercased().hasPrefix("acct:") {
            (resource, authority) = try Self.account(String(text.dropFirst(5)))
            return
        }
        let hasScheme = Self.schemePrefix(of: text) != nil
        if !hasScheme, text.contains("@"), !text.contains(where: { "/?#:".contains($0) }) {
            (resource, authority) = try Self.account(text)
            return
        }
        var url = hasScheme ? text : "https://" + text
        if let hash = url.firstIndex(of: "#") { url = String(url[..<hash]) }
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty
        else { throw .invalidIdentifier("the identifier is neither an account nor an http(s) URL") }
        self.resource = url
        self.authority = components.port.map { "\(host):\($0)" } ?? host
    }

    /// `acct:` and `user@host`: the host is what follows the last `@`.
    private static func account(_ account: String) throws(ConfigurationError) -> (String, String) {
        guard let at = account.lastIndex(of: "@") else { throw .invalidIdentifier("the account has no host") }
        let user = account[..<at]
        let host = account[account.index(after: at)...]
        guard !user.isEmpty, !host.isEmpty, !host.contains(where: { "/?#@ ".contains($0) }) else {
            throw .invalidIdentifier("the account is not user@host")
        }
        return ("acct:" + account, String(host))
    }

    /// The scheme of `text` when it starts with one (`letter *(letter / digit / + / - / .)` and
    /// `:`) followed by `//`: `example.com:8080` has none.
    private static func schemePrefix(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
            text[colon...].hasPrefix("://")
        else { return nil }
        return String(scheme)
    }

    /// The WebFinger query (RFC 7033 §4) for the issuer relation, over `https`.
    public var webFingerURL: URL? {
        var components = URLComponents()
        components.scheme = "https"
        let parts = authority.split(separator: ":", maxSplits: 1)
        components.host = String(parts[0])
        if parts.count == 2 {
            guard let port = Int(parts[1]) else { return nil }
            components.port = port
        }
        components.path = "/.well-known/webfinger"
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        func escape(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        components.percentEncodedQuery = "resource=\(escape(resource))&rel=\(escape(Self.issuerRelation))"
        return components.url
    }

    /// The link relation of an OpenID Connect issuer (Discovery §2).
    public static let issuerRelation = "http://openid.net/specs/connect/1.0/issuer"

    /// The normalised identifier.
    public var description: String { resource }
}
