import Foundation
import SessionKit
import Testing

@Suite struct ProviderConfigurationTests {
    private let redirect = URL(string: "com.example.app://auth/callback")!

    /// Built from raw bytes: Foundation on Linux refuses to parse a scheme with `_` from a string.
    private func rawURL(_ text: String) throws -> URL {
        try #require(URL(dataRepresentation: Data(text.utf8), relativeTo: nil))
    }

    // MARK: 1pass.dev profile

    @Test func onePassUsesTheFixedEndpointsAndScopes() throws {
        let configuration = try ProviderConfiguration.onePass(clientID: "my-app", redirectURI: redirect)
        #expect(configuration.issuer == "https://api.1pass.dev")
        #expect(configuration.clientID == "my-app")
        #expect(configuration.redirectURI == redirect)
        #expect(configuration.scopes == ["openid", "profile:basic", "email"])
        #expect(configuration.scopes.joined(separator: " ") == "openid profile:basic email")
        #expect(configuration.authorizationEndpoint.absoluteString == "https://api.1pass.dev/oauth/authorize")
        #expect(configuration.tokenEndpoint.absoluteString == "https://api.1pass.dev/oauth/token")
        #expect(configuration.revocationEndpoint?.absoluteString == "https://api.1pass.dev/oauth/revoke")
        #expect(configuration.jwksURI.absoluteString == "https://api.1pass.dev/.well-known/jwks.json")
        #expect(configuration.deviceKeyExchangeEndpoint?.absoluteString == "https://api.1pass.dev/api/v1/me/device_keys/exchange")
        #expect(configuration.disconnectEndpoint?.absoluteString == "https://api.1pass.dev/api/v1/me/connected_apps/my-app")
    }

    @Test func onePassOnAnotherIssuerDropsATrailingSlash() throws {
        let configuration = try ProviderConfiguration.onePass(
            clientID: "my-app", redirectURI: redirect, issuer: URL(string: "https://staging.1pass.dev/")!)
        #expect(configuration.issuer == "https://staging.1pass.dev")
        #expect(configuration.tokenEndpoint.absoluteString == "https://staging.1pass.dev/oauth/token")
    }

    @Test func onePassPercentEncodesTheClientInTheDisconnectPath() throws {
        let configuration = try ProviderConfiguration.onePass(clientID: "my app/1?x", redirectURI: redirect)
        #expect(configuration.disconnectEndpoint?.absoluteString == "https://api.1pass.dev/api/v1/me/connected_apps/my%20app%2F1%3Fx")
        #expect(configuration.clientID == "my app/1?x")
    }

    // MARK: Redirect scheme

    @Test(arguments: ["com.example_app:/callback", "my_app://auth/callback", "_:/x"])
    func aRedirectSchemeWithAnUnderscoreIsRejected(_ text: String) throws {
        let url = try rawURL(text)
        let scheme = String(text.prefix { $0 != ":" })
        #expect(throws: ConfigurationError.invalidRedirectScheme(scheme)) {
            try ProviderConfiguration.onePass(clientID: "my-app", redirectURI: url)
        }
        #expect(throws: ConfigurationError.invalidRedirectScheme(scheme)) {
            try ProviderConfiguration(
                issuer: "https://id.example.com", clientID: "a", redirectURI: url,
                authorizationEndpoint: URL(string: "https://id.example.com/a")!, tokenEndpoint: URL(string: "https://id.example.com/t")!,
                jwksURI: URL(string: "https://id.example.com/k")!)
        }
    }

    @Test(arguments: ["com.example.app:/callback", "com.example-app://cb", "https://app.example.com/cb", "http://127.0.0.1:8080/cb"])
    func otherRedirectSchemesAreAccepted(_ text: String) throws {
        let configuration = try ProviderConfiguration.onePass(clientID: "my-app", redirectURI: try #require(URL(string: text)))
        #expect(configuration.redirectURI.absoluteString == text)
    }

    @Test func openidIsAlwaysAmongTheScopes() throws {
        func scopes(_ asked: [String]) throws -> [String] {
            try ProviderConfiguration(
                issuer: "https://id.example.com", clientID: "a", redirectURI: redirect, scopes: asked,
                authorizationEndpoint: URL(string: "https://id.example.com/a")!, tokenEndpoint: URL(string: "https://id.example.com/t")!,
                jwksURI: URL(string: "https://id.example.com/k")!
            ).scopes
        }
        #expect(try scopes(["email"]) == ["openid", "email"])
        #expect(try scopes(["email", "openid"]) == ["email", "openid"])
        #expect(try scopes([]) == ["openid"])
    }

    // MARK: Callback matching

    @Test(arguments: [
        "com.example.app://auth/callback",
        "com.example.app://auth/callback?code=abc&state=xyz",
        "com.example.app://auth/callback?error=access_denied#fragment",
        "COM.EXAMPLE.APP://auth/callback?code=1",
        "com.example.app://AUTH/callback",
        "Com.Example.App://Auth/callback?code=1",
    ])
    func aCallbackMatchesSchemeHostAndPathIgnoringQueryAndCase(_ text: String) throws {
        let configuration = try ProviderConfiguration.onePass(clientID: "my-app", redirectURI: redirect)
        #expect(configuration.isCallback(try #require(URL(string: text))))
    }

    @Test(arguments: [
        "com.example.app://auth/other?code=1",
        "com.example.app://auth/callback/extra",
        "com.example.app://auth/callback/",
        "com.example.app://auth/Callback",
        "com.example.app://auth/",
        "com.example.app://auth",
        "com.example.app://other/callback",
        "com.example.app.evil://auth/callback",
        "https://auth/callback",
        "com.example.app:/callback",
    ])
    func anotherURLIsNotACallback(_ text: String) throws {
        let configuration = try ProviderConfiguration.onePass(clientID: "my-app", redirectURI: redirect)
        #expect(!configuration.isCallback(try #require(URL(string: text))))
    }

    @Test func aHostlessRedirectMatchesOnSchemeAndPath() throws {
        let configuration = try ProviderConfiguration.onePass(
            clientID: "my-app", redirectURI: URL(string: "com.example.app:/oauth2redirect")!)
        #expect(configuration.isCallback(URL(string: "com.example.app:/oauth2redirect?code=1&state=2")!))
        #expect(configuration.isCallback(URL(string: "COM.example.APP:/oauth2redirect")!))
        #expect(!configuration.isCallback(URL(string: "com.example.app:/oauth2redirect2")!))
        #expect(!configuration.isCallback(URL(string: "com.example.app://host/oauth2redirect")!))
    }

    @Test func anEmptyPathMatchesTheRootPath() throws {
        let configuration = try ProviderConfiguration.onePass(clientID: "my-app", redirectURI: URL(string: "https://app.example.com")!)
        #expect(configuration.isCallback(URL(string: "https://app.example.com/?code=1")!))
        #expect(configuration.isCallback(URL(string: "https://APP.example.com?code=1")!))
        #expect(!configuration.isCallback(URL(string: "https://app.example.com/x")!))
    }
}
