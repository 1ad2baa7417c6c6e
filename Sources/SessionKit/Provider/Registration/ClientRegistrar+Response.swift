import Foundation
import SessionKitCore

extension ClientRegistrar {
    /// The registration in a provider's answer (RFC 7591 §3.2.1, RFC 7592 §3), checked before
    /// anything is stored. `previous` is the stored registration a read answers for: a member the
    /// read leaves out keeps its stored value.
    func parse(_ body: Data, previous: ClientRegistration?) throws(ClientRegistrationError) -> ClientRegistration {
        func malformed(_ why: String) -> ClientRegistrationError {
            ClientRegistrationError(code: .malformedResponse, message: "the registration answer \(why)")
        }
        let wire: RegistrationWire
        do {
            wire = try JSONDecoder().decode(RegistrationWire.self, from: body)
        } catch DecodingError.typeMismatch(_, let context) where !context.codingPath.isEmpty {
            throw malformed("has a \(context.codingPath[0].stringValue) of the wrong type")
        } catch {
            throw malformed("is not a JSON object")
        }
        func string(_ name: String) -> String? { wire.strings[name] }
        func time(_ name: String) throws(ClientRegistrationError) -> Date?? {
            guard let seconds = wire.times[name] else { return .none }
            guard seconds.isFinite, seconds >= 0 else { throw malformed("has a \(name) out of range") }
            return .some(seconds == 0 ? nil : Date(timeIntervalSince1970: seconds))
        }

        guard let clientID = string("client_id"), !clientID.isEmpty else { throw malformed("has no client_id") }
        let secret = string("client_secret").map(Secret.init) ?? previous?.clientSecret
        let expiry: Date?
        switch try time("client_secret_expires_at") {
        case .some(let value): expiry = value
        case .none:
            // RFC 7591 §3.2.1: required whenever a secret is issued.
            if string("client_secret") != nil { throw malformed("issues a client_secret without client_secret_expires_at") }
            expiry = previous?.clientSecretExpiresAt
        }
        let issuedAt = try time("client_id_issued_at") ?? previous?.clientIDIssuedAt
        let token = string("registration_access_token").map(Secret.init) ?? previous?.registrationAccessToken
        let uriText = string("registration_client_uri")
        var uri = previous?.registrationClientURI
        if let uriText {
            guard let url = URL(string: uriText) else { throw malformed("has a registration_client_uri that is not a URL") }
            do {
                try ProviderConfiguration.requireSecure(url, name: "registration_client_uri")
            } catch {
                throw malformed("has a registration_client_uri that is not https")
            }
            uri = url
        }
        // RFC 7592 §3: the two come together; one alone reads and deletes nothing.
        guard (token == nil) == (uri == nil) else {
            throw malformed("has a registration_access_token without registration_client_uri, or the reverse")
        }
        let method =
            string("token_endpoint_auth_method").map(ClientAuthenticationMethod.init(rawValue:))
            ?? previous?.tokenEndpointAuthMethod ?? metadata.tokenEndpointAuthMethod
        var kept = secret
        switch method {
        case .clientSecretBasic, .clientSecretPost:
            guard secret != nil else { throw malformed("registers \(method) but issues no client_secret") }
        case .none:
            // RFC 7591 §2: a client of method none is public and has no secret; one issued all the
            // same is of no use to it and is not kept (nor is its expiry judged).
            kept = nil
        default:
            throw malformed("registers \(method), which this client cannot authenticate with")
        }
        var redirects = previous?.redirectURIs ?? metadata.redirectURIs
        if let listed = wire.redirectURIs { redirects = listed.compactMap(URL.init(string:)) }
        if let first = metadata.redirectURIs.first, !redirects.contains(first) {
            throw malformed("does not register the redirect URI \(first.absoluteString)")
        }
        return ClientRegistration(
            issuer: provider.issuer, clientID: clientID, clientSecret: kept, clientSecretExpiresAt: kept == nil ? nil : expiry,
            clientIDIssuedAt: issuedAt, registrationAccessToken: token, registrationClientURI: uri, tokenEndpointAuthMethod: method,
            redirectURIs: redirects)
    }
}

/// The members of a registration answer SessionKit reads, each of the type RFC 7591 §3.2.1 gives it.
private struct RegistrationWire: Decodable {
    var strings: [String: String] = [:]
    var times: [String: Double] = [:]
    var redirectURIs: [String]?

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private static let stringMembers = [
        "client_id", "client_secret", "registration_access_token", "registration_client_uri", "token_endpoint_auth_method",
    ]
    private static let timeMembers = ["client_secret_expires_at", "client_id_issued_at"]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for name in Self.stringMembers {
            if let value = try container.decodeIfPresent(String.self, forKey: Key(stringValue: name)) { strings[name] = value }
        }
        for name in Self.timeMembers {
            if let value = try container.decodeIfPresent(Double.self, forKey: Key(stringValue: name)) { times[name] = value }
        }
        redirectURIs = try container.decodeIfPresent([String].self, forKey: Key(stringValue: "redirect_uris"))
    }
}
