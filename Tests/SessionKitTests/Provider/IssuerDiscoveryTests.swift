import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Issuer discovery by WebFinger (OpenID Connect Discovery 1.0 §2): normalising what a person
/// typed (§2.1), the query, and the issuer checks, against the simulated provider.
@Suite("Issuer discovery")
struct IssuerDiscoveryTests {
    static let redirect = URL(string: "com.example.app://oauth/callback")!

    @Test(
        "identifiers are normalised as Discovery §2.1 says",
        arguments: [
            ("acct:joe@example.com", "acct:joe@example.com", "example.com"),
            ("joe@example.com", "acct:joe@example.com", "example.com"),
            ("example.com", "https://example.com", "example.com"),
            ("example.com:8080", "https://example.com:8080", "example.com:8080"),
            ("https://example.com/joe", "https://example.com/joe", "example.com"),
            ("https://example.com/joe#fragment", "https://example.com/joe", "example.com"),
            ("joe@example.com:8080", "https://joe@example.com:8080", "example.com:8080"),
            ("  joe@example.com ", "acct:joe@example.com", "example.com"),
        ])
    func normalisation(input: String, resource: String, authority: String) throws {
        let identifier = try IssuerIdentifier(input)
        #expect(identifier.resource == resource)
        #expect(identifier.authority == authority)
    }

    @Test(
        "input that is no identifier is refused",
        arguments: ["", "=joe", "@joe", "!joe", "acct:joe", "acct:@example.com", "ftp://example.com"])
    func refusedInput(input: String) {
        #expect {
            try IssuerIdentifier(input)
        } throws: { error in
            if case .invalidIdentifier = error as? ConfigurationError { return true }
            return false
        }
    }

    @Test("the query names the resource and the issuer relation, on the host over https")
    func queryURL() throws {
        let url = try #require(try IssuerIdentifier("joe@example.com").webFingerURL)
        #expect(
            url.absoluteString
                == "https://example.com/.well-known/webfinger?resource=acct%3Ajoe%40example.com&rel=http%3A%2F%2Fopenid.net%2Fspecs%2Fconnect%2F1.0%2Fissuer"
        )
    }

    private func provider() throws -> SimulatedProvider<TestClock> {
        let clock = TestClock()
        return try SimulatedProvider(clock: clock, now: { clock.wallClockNow() }, signingKeys: SimulatedProviderKeys.shared(count: 3))
    }

    @Test("an acct: identifier and a URL on the provider's host lead to its configuration")
    func discoversByWebFinger() async throws {
        let provider = try provider()
        for identifier in ["acct:alice@sim.1pass.test", "alice@sim.1pass.test", "https://sim.1pass.test/alice"] {
            let found = try await ProviderConfiguration.discover(
                identifier: identifier, clientID: "sim-client", redirectURI: Self.redirect, transport: provider)
            #expect(found.issuer == "https://sim.1pass.test", "\(identifier)")
            #expect(found.tokenEndpoint.absoluteString == "https://sim.1pass.test/oauth/token")
        }
        #expect(provider.requestCount(for: .webFinger) == 3)
    }

    @Test("an issuer link that is not https is refused before anything else is fetched")
    func httpIssuerRefused() async throws {
        let provider = try provider()
        provider.answerWebFinger(.issuer("http://sim.1pass.test"))
        await #expect(throws: ConfigurationError.webFingerFailed("the WebFinger answer's issuer is not an https URL")) {
            try await ProviderConfiguration.issuer(forIdentifier: "alice@sim.1pass.test", transport: provider)
        }
        #expect(provider.requestCount(for: .discovery) == 0)
    }

    @Test("no issuer link, an unknown host or a refused query: webFingerFailed")
    func failures() async throws {
        let provider = try provider()
        provider.answerWebFinger(.noIssuerLink)
        await #expect(throws: ConfigurationError.webFingerFailed("the WebFinger answer names no OpenID issuer")) {
            try await ProviderConfiguration.issuer(forIdentifier: "alice@sim.1pass.test", transport: provider)
        }
        provider.answerWebFinger(.truth)
        provider.script(.notFound, on: .webFinger)
        await #expect(throws: ConfigurationError.webFingerFailed("the WebFinger query answered HTTP 404")) {
            try await ProviderConfiguration.issuer(forIdentifier: "alice@sim.1pass.test", transport: provider)
        }
        provider.script(.rawAnswer(status: 200, body: "[1,2]"), on: .webFinger)
        await #expect(throws: ConfigurationError.webFingerFailed("the WebFinger answer is not a JSON resource descriptor")) {
            try await ProviderConfiguration.issuer(forIdentifier: "alice@sim.1pass.test", transport: provider)
        }
        await #expect(throws: ConfigurationError.self) {
            try await ProviderConfiguration.issuer(forIdentifier: "alice@elsewhere.example", transport: provider)
        }
    }

    @Test("the discovery document must name exactly the issuer WebFinger found")
    func issuerMismatchAfterWebFinger() async throws {
        let provider = try provider()
        provider.answerDiscovery(asIssuer: "https://evil.example")
        await #expect(throws: ConfigurationError.issuerMismatch(expected: "https://sim.1pass.test", found: "https://evil.example")) {
            try await ProviderConfiguration.discover(
                identifier: "alice@sim.1pass.test", clientID: "sim-client", redirectURI: Self.redirect, transport: provider)
        }
    }
}
