import Foundation
import SessionKit
import SessionKitJOSE

extension SimulatedProviderState {
    /// The OpenID discovery document (OpenID Connect Discovery 1.0 §3).
    func discoveryAnswer() -> Answer {
        var members: [(String, SimulatedProviderJSON)] = [
            ("issuer", .string(discoveryIssuerOverride ?? configuration.issuerString)),
            ("authorization_endpoint", .string(configuration.url(for: SimulatedProviderEndpoint.authorizationPath))),
            ("token_endpoint", .string(configuration.url(for: SimulatedProviderEndpoint.token.path))),
            ("jwks_uri", .string(configuration.url(for: SimulatedProviderEndpoint.jwks.path))),
            ("revocation_endpoint", .string(configuration.url(for: SimulatedProviderEndpoint.revocation.path))),
            ("userinfo_endpoint", .string(configuration.url(for: SimulatedProviderEndpoint.userInfo.path))),
            ("end_session_endpoint", .string(configuration.url(for: SimulatedProviderEndpoint.endSessionPath))),
            ("device_authorization_endpoint", .string(configuration.url(for: SimulatedProviderEndpoint.deviceAuthorization.path))),
            ("response_types_supported", .array([.string("code")])),
            (
                "grant_types_supported",
                .array([.string("authorization_code"), .string("refresh_token"), .string(ProviderClient.deviceCodeGrantType)])
            ),
            ("prompt_values_supported", .array(["none", "login", "consent", "select_account"].map(SimulatedProviderJSON.string))),
            ("acr_values_supported", .array(configuration.supportedACRValues.map(SimulatedProviderJSON.string))),
            ("claims_parameter_supported", .bool(true)),
            ("subject_types_supported", .array([.string("public")])),
            ("id_token_signing_alg_values_supported", .array([.string(configuration.idTokenSigningAlgorithm.rawValue)])),
            ("code_challenge_methods_supported", .array([.string("S256")])),
            ("registration_endpoint", .string(configuration.url(for: SimulatedProviderEndpoint.registration.path))),
            (
                "token_endpoint_auth_methods_supported",
                .array(["none", "client_secret_basic", "client_secret_post"].map(SimulatedProviderJSON.string))
            ),
            (
                "revocation_endpoint_auth_methods_supported",
                .array(["none", "client_secret_basic", "client_secret_post"].map(SimulatedProviderJSON.string))
            ),
            ("scopes_supported", .array(["openid", "profile:basic", "email"].map(SimulatedProviderJSON.string))),
        ]
        if configuration.dpop != nil {
            members.append(("dpop_signing_alg_values_supported", .array([.string("ES256")])))
        }
        if configuration.includesIssuerInCallback {
            members.append(("authorization_response_iss_parameter_supported", .bool(true)))
        }
        return Answer(Self.json(200, .object(members), headers: ["Cache-Control": "max-age=3600"]))
    }

    /// The keys id_tokens may be verified with: the current one and retired ones still in their grace period.
    func publishedKeys(now: Date) -> [SigningKey] {
        [currentKey] + retiredKeys.filter { key in key.publishedUntil.map { now < $0 } ?? false }
    }

    /// The JWKS document.
    func jwksAnswer(now: Date) -> Answer {
        // Serialized from the JWKs alone: a JWKS value would build a verification key per entry.
        let document = JWKS.jsonData(of: publishedKeys(now: now).map(\.publicJWK))
        return Answer(
            HTTPResponse(
                status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=3600"],
                body: Data(document)))
    }

    /// Makes `key` the signing key; the previous one stays published until `now + grace` (not at all for zero).
    mutating func installSigningKey(_ key: SigningKey.Signer, grace: Duration, now: Date) -> String {
        keyCounter += 1
        var previous = currentKey
        previous.publishedUntil = now.addingTimeInterval(grace.simulatedProviderSeconds)
        retiredKeys = retiredKeys.filter { $0.publishedUntil.map { now < $0 } ?? false }
        if grace > .zero { retiredKeys.append(previous) }
        currentKey = SigningKey(key, keyID: Self.keyID(number: keyCounter))
        return currentKey.keyID
    }
}
