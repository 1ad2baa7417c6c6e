import Foundation
import Testing

@testable import SessionKit

/// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): the end-session URL and the
/// matching of the provider's return.
@Suite struct EndSessionRequestTests {
    private static let redirect = URL(string: "com.example.app:/logged-out")!

    private func client(endSession: String? = "https://id.example.com/oauth/logout") throws -> ProviderClient {
        let base = try ProviderTestKeys.configuration()
        let configuration = try ProviderConfiguration(
            issuer: base.issuer, clientID: base.clientID, redirectURI: base.redirectURI,
            authorizationEndpoint: base.authorizationEndpoint, tokenEndpoint: base.tokenEndpoint, jwksURI: base.jwksURI,
            endSessionEndpoint: endSession.flatMap(URL.init(string:)))
        return ProviderClient(configuration: configuration, transport: RecordingTransport(always: .json(500, "{}")), now: { Date() })
    }

    private func request(state: String = "st-123") throws -> EndSessionRequest {
        try EndSessionRequest(idTokenHint: Secret("h.p.s"), postLogoutRedirectURI: Self.redirect, state: Secret(state))
    }

    @Test func theURLCarriesTheParametersInTheSpecificationsOrder() throws {
        let request = try EndSessionRequest(
            idTokenHint: Secret("eyJ.p+/.s"), postLogoutRedirectURI: Self.redirect, state: Secret("st-123"),
            logoutHint: "alice@example.com", uiLocales: ["fr", "en"])
        let url = try #require(try client().endSessionURL(for: request))
        #expect(
            url.absoluteString
                == "https://id.example.com/oauth/logout?id_token_hint=eyJ.p%2B%2F.s&logout_hint=alice%40example.com"
                + "&client_id=app-client&post_logout_redirect_uri=com.example.app%3A%2Flogged-out&state=st-123&ui_locales=fr%20en")
    }

    @Test func optionalParametersAreLeftOut() throws {
        let request = try EndSessionRequest(idTokenHint: nil, includesClientID: false)
        #expect(try client().endSessionURL(for: request)?.absoluteString == "https://id.example.com/oauth/logout")
        let hintOnly = try EndSessionRequest(idTokenHint: Secret("h.p.s"))
        #expect(
            try client().endSessionURL(for: hintOnly)?.absoluteString
                == "https://id.example.com/oauth/logout?id_token_hint=h.p.s&client_id=app-client")
    }

    @Test func anExistingQueryIsKept() throws {
        let url = try client(endSession: "https://id.example.com/logout?tenant=a").endSessionURL(for: try request())
        #expect(url?.absoluteString.hasPrefix("https://id.example.com/logout?tenant=a&id_token_hint=h.p.s&client_id=app-client&") == true)
    }

    @Test func noEndpointMeansNoURL() throws {
        #expect(try client(endSession: nil).endSessionURL(for: try request()) == nil)
    }

    @Test func aRedirectWithoutStateIsRefusedAtConstruction() {
        #expect(throws: EndSessionRequestError.stateRequired) {
            try EndSessionRequest(idTokenHint: nil, postLogoutRedirectURI: Self.redirect)
        }
        #expect(throws: EndSessionRequestError.emptyState) {
            try EndSessionRequest(idTokenHint: nil, postLogoutRedirectURI: Self.redirect, state: Secret(""))
        }
    }

    @Test(arguments: [
        ("com.example.app:/logged-out?state=st-123", EndSessionReturn.completed),
        ("COM.EXAMPLE.APP:/logged-out?state=st-123&extra=1", .completed),
        ("com.example.app:/logged-out?state=st-124", .refused(.stateMismatch)),
        ("com.example.app:/logged-out?state=st-12", .refused(.stateMismatch)),
        ("com.example.app:/logged-out", .refused(.missingState)),
        ("com.example.app:/logged-out?state=st-123&state=st-123", .refused(.repeatedParameter("state"))),
        ("com.example.app:/logged-out?state=st-123&x=1&x=2", .refused(.repeatedParameter("another parameter"))),
        ("com.example.app:/logged-out?state=%FF", .refused(.undecodableQuery)),
        ("com.example.app:/oauth/callback?state=st-123", .notForThisRequest),
        ("com.other.app:/logged-out?state=st-123", .notForThisRequest),
        ("https://id.example.com/logged-out?state=st-123", .notForThisRequest),
    ])
    func theReturnIsMatched(_ url: String, _ expected: EndSessionReturn) throws {
        #expect(try request().match(try #require(URL(string: url))) == expected)
    }

    @Test func aLoopbackReturnMustComeToTheSamePort() throws {
        let loopback = try EndSessionRequest(
            idTokenHint: nil, postLogoutRedirectURI: URL(string: "http://127.0.0.1:50123/logged-out")!, state: Secret("s1"))
        #expect(loopback.match(URL(string: "http://127.0.0.1:50123/logged-out?state=s1")!) == .completed)
        #expect(loopback.match(URL(string: "http://127.0.0.1:50124/logged-out?state=s1")!) == .notForThisRequest)
    }

    @Test func aRequestWithoutRedirectExpectsNoReturn() throws {
        let request = try EndSessionRequest(idTokenHint: Secret("h.p.s"))
        #expect(request.match(URL(string: "com.example.app:/logged-out?state=x")!) == .notForThisRequest)
    }

    @Test func renderingsShowNoHintAndNoState() throws {
        let request = try EndSessionRequest(
            idTokenHint: Secret("hint-token-value"), postLogoutRedirectURI: Self.redirect, state: Secret("state-value-xyz"),
            logoutHint: "alice@example.com")
        var dumped = ""
        dump(request, to: &dumped)
        for text in [request.description, "\(request)", String(reflecting: request), dumped] {
            #expect(!text.contains("hint-token-value"))
            #expect(!text.contains("state-value-xyz"))
            #expect(!text.contains("alice@example.com"))
            #expect(text.contains("logged-out"))
        }
        for refusal in [EndSessionReturn.refused(.stateMismatch), .refused(.missingState), .completed, .notForThisRequest] {
            #expect(!refusal.description.contains("st-"))
        }
    }
}
