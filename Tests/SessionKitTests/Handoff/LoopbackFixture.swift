import Foundation

@testable import SessionKit

/// A handoff request, a scripted browser and request builders for the loopback presenter's tests.
enum LoopbackFixture {
    static let state = "st4te-of-this-attempt"
    static let configuredRedirect = URL(string: "http://127.0.0.1/callback")!
    static let request = request(
        URL(
            string: "https://id.example.com/authorize?response_type=code&client_id=cli"
                + "&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcallback&scope=openid&state=\(state)&nonce=n0nce"
                + "&code_challenge=ch4llenge&code_challenge_method=S256")!,
        redirectURI: configuredRedirect)

    /// A request that renders itself for another redirect URI, as the session's requests do.
    static func request(_ authorizationURL: URL, redirectURI: URL) -> HandoffRequest {
        HandoffRequest(
            authorizationURL: authorizationURL, redirectURI: redirectURI,
            redirects: HandoffRedirects { redirect in
                var components = URLComponents(url: authorizationURL, resolvingAgainstBaseURL: false)!
                components.queryItems = components.queryItems?.map { item in
                    item.name == "redirect_uri" ? URLQueryItem(name: item.name, value: redirect.absoluteString) : item
                }
                return components.url!
            })
    }

    /// A browser that does nothing but hand the URL it was asked to open to the test.
    static func browser() -> (opener: BrowserOpener, opened: AsyncStream<URL>) {
        let (opened, continuation) = AsyncStream.makeStream(of: URL.self)
        return (BrowserOpener { url in continuation.yield(url) }, opened)
    }

    /// Runs `present` in a task of its own, so the test can play the browser meanwhile.
    static func presenting(_ presenter: LoopbackPresenter, _ request: HandoffRequest = request) -> Task<Result<URL?, HandoffError>, Never> {
        Task {
            do throws(HandoffError) {
                return .success(try await presenter.present(request))
            } catch {
                return .failure(error)
            }
        }
    }

    /// The query fields of `url`, in order.
    static func fields(of url: URL) -> [(String, String)] {
        (URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
    }

    /// The redirect URI the presenter put into the authorization URL it opened.
    static func redirectURI(in opened: URL) -> URL? {
        fields(of: opened).first { $0.0 == "redirect_uri" }.flatMap { URL(string: $0.1) }
    }

    /// A request head as a browser sends it, CRLF line ends and all.
    static func head(_ target: String, method: String = "GET", host: String?, extra: [String] = []) -> String {
        var lines = ["\(method) \(target) HTTP/1.1"]
        if let host { lines.append("Host: \(host)") }
        lines += ["User-Agent: test-browser", "Accept: text/html"] + extra
        return lines.joined(separator: "\r\n") + "\r\n\r\n"
    }

    /// The status line's code of a raw response.
    static func status(of response: String) -> Int? {
        let parts = response.prefix { $0 != "\r" }.split(separator: " ")
        return parts.count >= 2 ? Int(parts[1]) : nil
    }
}
