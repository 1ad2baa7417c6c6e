import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// A registered loopback IP redirect URI matches on any port (RFC 8252 §7.3), for sign-in and after
/// logout, as django-oauth-toolkit matches both; the code is bound to the redirect URI the
/// authorization request named. A provider that matches loopback ports exactly refuses both.
@Suite("Simulated provider: loopback redirect URIs")
struct SimulatedProviderLoopbackRedirectTests {
    private let fixture: ProviderFixture

    init() throws {
        fixture = try ProviderFixture(SimulatedProviderConfiguration(redirectURI: URL(string: "http://127.0.0.1/callback")!))
    }

    @Test func anyPortIsAcceptedAndTheCallbackGoesToThatPort() async throws {
        let pkce = try PKCE.generate()
        let callback = try fixture.provider.authorize(
            fixture.authorizationURL(pkce: pkce, redirectURI: "http://127.0.0.1:49152/callback"), subject: "alice")

        #expect(callback.port == 49152 && callback.host == "127.0.0.1" && callback.path == "/callback")
        let code = try ProviderFixture.code(in: callback)
        let mismatched = try await fixture.exchange(code: code, verifier: Secret(pkce.verifier))
        #expect(mismatched.status == 400, "the code is bound to the port it was issued for")
    }

    @Test func theCodeExchangesWithTheRedirectURIItWasIssuedFor() async throws {
        let pkce = try PKCE.generate()
        let redirect = "http://127.0.0.1:50000/callback"
        let callback = try fixture.provider.authorize(fixture.authorizationURL(pkce: pkce, redirectURI: redirect), subject: "alice")

        let response = try await fixture.exchange(
            code: try ProviderFixture.code(in: callback), verifier: Secret(pkce.verifier), redirectURI: redirect)

        #expect(response.status == 200)
    }

    @Test(arguments: [
        "http://127.0.0.1:5000/other", "https://127.0.0.1:5000/callback", "http://localhost:5000/callback",
        "http://127.0.0.2:5000/callback", "http://127.0.0.1:5000/callback?x=1",
    ])
    func onlyThePortMayDiffer(_ redirect: String) throws {
        #expect(throws: SimulatedProviderAuthorizationError.redirectURIMismatch) {
            try fixture.provider.authorize(fixture.authorizationURL(pkce: try PKCE.generate(), redirectURI: redirect), subject: "alice")
        }
    }

    /// The end-session URL for `redirect`, with a state and the client.
    private static func endSessionURL(_ fixture: ProviderFixture, redirect: String) -> URL {
        var components = URLComponents(string: fixture.configuration.issuer.absoluteString + SimulatedProviderEndpoint.endSessionPath)!
        components.queryItems = [
            URLQueryItem(name: "client_id", value: fixture.configuration.clientID),
            URLQueryItem(name: "post_logout_redirect_uri", value: redirect), URLQueryItem(name: "state", value: "st4te"),
        ]
        return components.url!
    }

    private static let loopbackLogout = URL(string: "http://127.0.0.1/logged-out")!

    @Test func aRegisteredLoopbackPostLogoutURIMatchesOnAnyPortAndTheBrowserGoesBackToThatPort() throws {
        let fixture = try ProviderFixture(SimulatedProviderConfiguration(postLogoutRedirectURIs: [Self.loopbackLogout]))

        let back = try fixture.provider.endSession(Self.endSessionURL(fixture, redirect: "http://127.0.0.1:49152/logged-out"))

        #expect(back == URL(string: "http://127.0.0.1:49152/logged-out?state=st4te"))
        #expect(fixture.provider.endSessionRecords.last?.postLogoutRedirectURI == "http://127.0.0.1:49152/logged-out")
    }

    @Test(arguments: ["http://127.0.0.1:49152/other", "http://localhost:49152/logged-out", "https://127.0.0.1:49152/logged-out"])
    func onlyThePortOfAPostLogoutURIMayDiffer(_ redirect: String) throws {
        let fixture = try ProviderFixture(SimulatedProviderConfiguration(postLogoutRedirectURIs: [Self.loopbackLogout]))
        #expect(throws: SimulatedProviderEndSessionError.unregisteredRedirectURI) {
            try fixture.provider.endSession(Self.endSessionURL(fixture, redirect: redirect))
        }
    }

    @Test func aProviderThatMatchesLoopbackPortsExactlyRefusesAnotherPortForSignInAndLogout() throws {
        let fixture = try ProviderFixture(
            SimulatedProviderConfiguration(
                redirectURI: URL(string: "http://127.0.0.1:8400/callback")!,
                postLogoutRedirectURIs: [URL(string: "http://127.0.0.1:8400/logged-out")!], matchesLoopbackPortsExactly: true))

        #expect(throws: SimulatedProviderAuthorizationError.redirectURIMismatch) {
            try fixture.provider.authorize(
                fixture.authorizationURL(pkce: try PKCE.generate(), redirectURI: "http://127.0.0.1:49152/callback"), subject: "alice")
        }
        #expect(throws: SimulatedProviderEndSessionError.unregisteredRedirectURI) {
            try fixture.provider.endSession(Self.endSessionURL(fixture, redirect: "http://127.0.0.1:49152/logged-out"))
        }
        // The registered port is accepted: `LoopbackPresenter(port: 8400)`.
        let callback = try fixture.provider.authorize(
            fixture.authorizationURL(pkce: try PKCE.generate(), redirectURI: "http://127.0.0.1:8400/callback"), subject: "alice")
        #expect(callback.port == 8400)
        let back = try fixture.provider.endSession(Self.endSessionURL(fixture, redirect: "http://127.0.0.1:8400/logged-out"))
        #expect(back == URL(string: "http://127.0.0.1:8400/logged-out?state=st4te"))
    }

    @Test func aNonLoopbackRegistrationStillMatchesExactly() throws {
        let fixture = try ProviderFixture(SimulatedProviderConfiguration(redirectURI: URL(string: "http://app.example/callback")!))
        #expect(throws: SimulatedProviderAuthorizationError.redirectURIMismatch) {
            try fixture.provider.authorize(
                fixture.authorizationURL(pkce: try PKCE.generate(), redirectURI: "http://app.example:8080/callback"), subject: "alice")
        }
    }
}
