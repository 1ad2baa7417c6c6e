import Foundation
import Testing

@testable import SessionKit

/// The loopback presenter at sign-out: the provider's end-session page, with the listener's URI
/// as `post_logout_redirect_uri` and a return that carries only `state` (RP-Initiated Logout 1.0).
@Suite(.timeLimit(.minutes(1)))
struct LoopbackPresenterEndSessionTests {
    typealias Fixture = LoopbackFixture

    static let configuredReturn = URL(string: "http://127.0.0.1/logged-out")!
    static let endSession = HandoffRequest(
        authorizationURL: URL(
            string: "https://id.example.com/logout?id_token_hint=h1nt&client_id=cli"
                + "&post_logout_redirect_uri=http%3A%2F%2F127.0.0.1%2Flogged-out&state=\(Fixture.state)")!,
        redirectURI: configuredReturn, kind: .endSession,
        redirects: HandoffRedirects { redirect in
            URL(
                string: "https://id.example.com/logout?id_token_hint=h1nt&client_id=cli&post_logout_redirect_uri="
                    + redirect.absoluteString.addingPercentEncoding(withAllowedCharacters: .alphanumerics)! + "&state=\(Fixture.state)")!
        })

    static func returnURI(in opened: URL) -> URL? {
        Fixture.fields(of: opened).first { $0.0 == "post_logout_redirect_uri" }.flatMap { URL(string: $0.1) }
    }

    @Test func theReturnWithOnlyTheStateIsAcceptedAndAnsweredWithTheSignOutPage() async throws {
        let (opener, opened) = Fixture.browser()
        let presenting = Fixture.presenting(LoopbackPresenter(opener: opener), Self.endSession)
        let url = try #require(await opened.first { _ in true })
        let returnURI = try #require(Self.returnURI(in: url))
        let port = try #require(returnURI.port.map(UInt16.init))
        #expect(returnURI.absoluteString == "http://127.0.0.1:\(port)/logged-out", "the listener's port, the configured path")
        #expect(Fixture.fields(of: url).contains { $0 == ("state", Fixture.state) })

        let response = try await RawLoopbackClient.exchange(
            Fixture.head("/logged-out?state=\(Fixture.state)", host: "127.0.0.1:\(port)"), port: port)

        #expect(Fixture.status(of: response) == 200)
        #expect(response.contains("You are signed out."))
        #expect(!response.contains(Fixture.state), "the page repeats nothing from the request")
        let returned = try await presenting.value.get()
        #expect(returned == URL(string: "http://127.0.0.1:\(port)/logged-out?state=\(Fixture.state)"))
        #expect(RawLoopbackClient.isRefused(port), "the listener is closed once the return arrived")
    }

    @Test func aReturnWithoutTheStateOrWithAnotherIsRefusedAndListeningGoesOn() async throws {
        let (opener, opened) = Fixture.browser()
        let presenting = Fixture.presenting(LoopbackPresenter(opener: opener), Self.endSession)
        let url = try #require(await opened.first { _ in true })
        let port = try #require(Self.returnURI(in: url)?.port.map(UInt16.init))
        let host = "127.0.0.1:\(port)"

        let bare = try await RawLoopbackClient.exchange(Fixture.head("/logged-out", host: host), port: port)
        let noState = try await RawLoopbackClient.exchange(Fixture.head("/logged-out?code=c0de", host: host), port: port)
        let forged = try await RawLoopbackClient.exchange(Fixture.head("/logged-out?state=forged", host: host), port: port)
        let repeated = try await RawLoopbackClient.exchange(
            Fixture.head("/logged-out?state=\(Fixture.state)&state=\(Fixture.state)", host: host), port: port)

        #expect([bare, noState, forged, repeated].map(Fixture.status(of:)) == [400, 400, 400, 400])
        let accepted = try await RawLoopbackClient.exchange(Fixture.head("/logged-out?state=\(Fixture.state)", host: host), port: port)
        #expect(Fixture.status(of: accepted) == 200)
        #expect(try await presenting.value.get()?.query == "state=\(Fixture.state)")
    }

    @Test func anEndSessionRequestWithoutAStateIsRefusedBeforeOpeningAnything() async {
        let opened = Collector<URL>()
        let request = HandoffRequest(
            authorizationURL: URL(string: "https://id.example.com/logout?post_logout_redirect_uri=x")!,
            redirectURI: Self.configuredReturn, kind: .endSession,
            redirects: HandoffRedirects { redirect in
                URL(string: "https://id.example.com/logout?post_logout_redirect_uri=" + redirect.absoluteString)!
            })

        let result = await Fixture.presenting(LoopbackPresenter(opener: BrowserOpener { opened.append($0) }), request).value

        #expect(throws: HandoffError.presentationFailed("the end-session request carries no state")) { try result.get() }
        #expect(opened.values.isEmpty)
    }

    @Test func anAuthorizationCallbackStillNeedsACodeOrAnError() throws {
        let head = try LoopbackRequestHead.parse(Array(Fixture.head("/callback?state=s", host: "127.0.0.1:9").utf8)[...])
        let page: [UInt8] = Array("ok".utf8)
        let asAuthorization = LoopbackPresenter.answer(head, hosts: ["127.0.0.1:9"], path: "/callback", state: "s", page: page)
        let asEndSession = LoopbackPresenter.answer(
            head, hosts: ["127.0.0.1:9"], path: "/callback", state: "s", kind: .endSession, page: page)

        #expect(asAuthorization == .refuse(LoopbackResponse.refusal(400)))
        #expect(asEndSession == .accept(page))
    }
}
