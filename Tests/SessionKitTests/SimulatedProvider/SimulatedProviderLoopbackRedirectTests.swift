import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// A registered loopback IP redirect URI matches on any port (RFC 8252 §7.3), and the code is bound
/// to the redirect URI the authorization request named.
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

    @Test func aNonLoopbackRegistrationStillMatchesExactly() throws {
        let fixture = try ProviderFixture(SimulatedProviderConfiguration(redirectURI: URL(string: "http://app.example/callback")!))
        #expect(throws: SimulatedProviderAuthorizationError.redirectURIMismatch) {
            try fixture.provider.authorize(
                fixture.authorizationURL(pkce: try PKCE.generate(), redirectURI: "http://app.example:8080/callback"), subject: "alice")
        }
    }
}
