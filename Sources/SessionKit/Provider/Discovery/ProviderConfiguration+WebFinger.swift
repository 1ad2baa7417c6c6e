public import Foundation

extension ProviderConfiguration {
    /// Finds the issuer for `identifier` by WebFinger (OpenID Connect Discovery 1.0 §2): the
    /// identifier is normalised (``IssuerIdentifier``), its host's `/.well-known/webfinger` is
    /// asked for the `http://openid.net/specs/connect/1.0/issuer` relation, and the first such
    /// link's `href` is the issuer. It must be an `https` URL (`http` only on a loopback host)
    /// without query or fragment. Members the answer has beyond those are ignored.
    ///
    /// - Throws: ``ConfigurationError/invalidIdentifier(_:)`` for input that is no identifier;
    ///   ``ConfigurationError/webFingerFailed(_:)`` when the query fails or its answer names no
    ///   usable issuer.
    public static func issuer(
        forIdentifier identifier: String, transport: any HTTPTransport
    ) async throws(ConfigurationError) -> String {
        let normalised = try IssuerIdentifier(identifier)
        guard let url = normalised.webFingerURL else { throw .invalidIdentifier("the identifier's host is not usable") }
        let response: HTTPResponse
        do {
            response = try await transport.send(
                HTTPRequest(method: "GET", url: url, headers: [("Accept", "application/jrd+json, application/json")]))
        } catch {
            throw .webFingerFailed("the WebFinger query could not be sent: \(error)")
        }
        guard response.status == 200 else { throw .webFingerFailed("the WebFinger query answered HTTP \(response.status)") }
        let document: WebFingerDocument
        do {
            document = try JSONDecoder().decode(WebFingerDocument.self, from: response.body)
        } catch {
            throw .webFingerFailed("the WebFinger answer is not a JSON resource descriptor")
        }
        guard let href = document.links?.first(where: { $0.rel == IssuerIdentifier.issuerRelation && $0.href != nil })?.href else {
            throw .webFingerFailed("the WebFinger answer names no OpenID issuer")
        }
        guard let issuerURL = URL(string: href), issuerURL.query == nil, issuerURL.fragment == nil else {
            throw .webFingerFailed("the WebFinger answer's issuer is not a URL without query and fragment")
        }
        do {
            try requireSecure(issuerURL, name: "issuer")
        } catch {
            throw .webFingerFailed("the WebFinger answer's issuer is not an https URL")
        }
        return href
    }

    /// Finds the issuer for `identifier` by WebFinger (``issuer(forIdentifier:transport:)``), then
    /// builds the configuration from its discovery document, whose `issuer` must equal the one
    /// WebFinger named exactly (Discovery §4.3, ``ConfigurationError/issuerMismatch(expected:found:)``).
    public static func discover(
        identifier: String, clientID: String, redirectURI: URL, scopes: [String] = ["openid"], revocationEndpoint: URL? = nil,
        transport: any HTTPTransport
    ) async throws(ConfigurationError) -> ProviderConfiguration {
        let issuer = try await issuer(forIdentifier: identifier, transport: transport)
        return try await discover(
            issuer: issuer, clientID: clientID, redirectURI: redirectURI, scopes: scopes, revocationEndpoint: revocationEndpoint,
            transport: transport)
    }
}

/// The members of a JSON resource descriptor (RFC 7033 §4.4) that issuer discovery reads.
private struct WebFingerDocument: Decodable {
    struct Link: Decodable {
        var rel: String?
        var href: String?
    }

    var links: [Link]?
}
