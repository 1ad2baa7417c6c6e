import Foundation
import SessionKit
import Synchronization

/// Plays a person's browser at a local provider: keeps the provider's cookies from page to page
/// (so single sign-on is real), signs in with the test-user header when told to, and fills in the
/// pages a person would (DOT's login continuation, the device verification page, the mock's
/// end-session confirmation).
///
/// It never follows a redirect to the app: the `Location` of the last answer is the result.
final class ScriptedBrowser: Sendable {
    let environment: ProviderEnvironment
    let user: String
    private let transport: any HTTPTransport
    private let cookies = Locked<[String: String]>([:])

    init(environment: ProviderEnvironment, user: String, transport: any HTTPTransport) {
        self.environment = environment
        self.user = user
        self.transport = transport
    }

    /// Whether the provider set a session cookie this browser still holds.
    var holdsCookies: Bool { cookies.withLock { !$0.isEmpty } }

    /// One page visit; `signIn` adds DOT's test-user header (the person types a password).
    func visit(_ method: String, _ url: URL, form: [(String, String)]? = nil, signIn: Bool) async throws -> HTTPResponse {
        var headers: [(name: String, value: String)] = []
        if signIn, let header = environment.userHeader { headers.append((header, user)) }
        let jar = cookies.withLock { $0 }
        if !jar.isEmpty {
            headers.append(("Cookie", jar.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ")))
        }
        var body: Data?
        if let form {
            headers.append(("Content-Type", "application/x-www-form-urlencoded"))
            body = Data(ProviderFixtureForm.encode(form).utf8)
        }
        let response = try await transport.send(HTTPRequest(method: method, url: url, headers: headers, body: body))
        if let setCookie = response.header("set-cookie") { remember(setCookie) }
        return response
    }

    /// The redirect of an answer, resolved against `base`.
    static func location(_ response: HTTPResponse, base: URL) -> URL? {
        response.header("location").flatMap { URL(string: $0, relativeTo: base)?.absoluteURL }
    }

    /// Opens an authorization URL and returns where the provider sends the browser: the app's
    /// callback, or (`signIn` false, no provider session) DOT's login page.
    ///
    /// `signIn`: the person signs in when the provider asks (DOT's login page after
    /// `prompt=login` continues the request with the header; the mock's form names the user).
    func authorize(_ url: URL, signIn: Bool) async throws -> URL? {
        switch environment.kind {
        case .oidcProviderMock:
            let answer = try await visit("POST", url, form: [("sub", user)], signIn: false)
            return Self.location(answer, base: url)
        case .idpyoidc:
            return Self.location(try await visit("GET", url, signIn: true), base: url)
        case .djangoOAuthToolkit:
            let answer = try await visit("GET", url, signIn: signIn)
            guard let location = Self.location(answer, base: url) else { return nil }
            if signIn, let next = WireScenarios.Rig.loginPageContinuation(location, base: url) {
                return Self.location(try await visit("GET", next, signIn: true), base: next)
            }
            return location
        }
    }

    /// Opens an end-session URL as the signed-in browser and returns the provider's redirect.
    func endSession(_ url: URL) async throws -> URL? {
        var answer = try await visit("GET", url, signIn: false)
        if environment.kind == .oidcProviderMock, answer.status == 200 {
            // The mock asks for confirmation first; the person presses "End session".
            let page = String(decoding: answer.body, as: UTF8.self)
            guard let target = WireScenarios.hiddenField("redirect_uri", in: page) else { return nil }
            guard let confirm = URL(string: environment.issuer + "/oauth2/end_session/confirm") else { return nil }
            answer = try await visit("POST", confirm, form: [("redirect_uri", target)], signIn: false)
        }
        return Self.location(answer, base: url)
    }

    /// DOT's device verification: enter the user code, then accept (or deny) on the confirm page.
    func decideDeviceCode(_ prompt: DeviceCodePrompt, accept: Bool = true) async throws -> Int {
        let entered = try await visit("POST", prompt.verificationURI, form: [("user_code", prompt.userCode)], signIn: true)
        guard let confirm = Self.location(entered, base: prompt.verificationURI) else {
            throw BrowserError.noConfirmPage(status: entered.status)
        }
        return try await visit("POST", confirm, form: [("action", accept ? "accept" : "deny")], signIn: true).status
    }

    private func remember(_ header: String) {
        // One header may carry several cookies joined by commas; attributes follow semicolons.
        let pattern = /(?:^|,\s*)([A-Za-z0-9_]+)=([^;,]*)/
        cookies.withLock { jar in
            for match in header.matches(of: pattern) {
                let name = String(match.1)
                let value = String(match.2)
                if value.isEmpty || value == "\"\"" { jar[name] = nil } else { jar[name] = value }
            }
        }
    }
}

/// A provider page did not lead where a person would be led.
enum BrowserError: Error {
    case noConfirmPage(status: Int)
}

/// A presenter that is the scripted browser: it signs in at the authorization page (with the
/// test-user header the first time or when `prompt=login` asks, by cookie afterwards), ends the
/// provider session at the end-session page, and approves device codes.
struct BrowserPresenter: HandoffPresenter {
    let browser: ScriptedBrowser
    /// Whether to send the header (a password) at the authorization page; off, only the
    /// provider's session cookie can sign the person in.
    let signIn: @Sendable () -> Bool
    /// Called once a device code was decided at the provider.
    var decidedDeviceCode: @Sendable () -> Void = {}

    func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? {
        do {
            switch request.kind {
            case .authorization: return try await browser.authorize(request.url, signIn: signIn())
            case .endSession: return try await browser.endSession(request.url)
            }
        } catch {
            throw .presentationFailed("the scripted browser failed: \(error)")
        }
    }

    func presentDeviceCode(_ prompt: DeviceCodePrompt) async throws(HandoffError) {
        do {
            guard try await browser.decideDeviceCode(prompt) == 302 else { throw HandoffError.presentationFailed("not accepted") }
            decidedDeviceCode()
        } catch {
            throw .presentationFailed("the scripted browser failed: \(error)")
        }
    }
}
