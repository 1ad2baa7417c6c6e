import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// OpenID Connect beyond the fixed sign-in, at the provider-client level over real HTTP: request
/// options with `auth_time`, UserInfo with its `sub` check, RP-initiated logout, and the device
/// authorization grant approved by a scripted browser. The session wiring is tested elsewhere;
/// these prove the wire code against providers that were not written for it.
enum WireScenarios {
    /// A provider client on the discovered configuration, with a scripted browser for the pages
    /// a person would see.
    struct Rig {
        let environment: ProviderEnvironment
        let transport = URLSessionTransport(clock: ContinuousClock(), deadline: .seconds(20))
        let configuration: ProviderConfiguration
        let client: ProviderClient
        let user: String

        init(_ environment: ProviderEnvironment, user prefix: String) async throws {
            self.environment = environment
            configuration = try await ProviderConfiguration.discover(
                issuer: environment.issuer, clientID: environment.clientID, redirectURI: environment.redirectURI,
                scopes: ["openid", "profile", "email"], revocationEndpoint: environment.revocationEndpoint, transport: transport)
            client = ProviderClient(configuration: configuration, transport: transport, now: { Date() })
            user = "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
        }

        /// Plays the person on a provider page: DOT signs in whoever the test header names.
        func browse(_ method: String, _ url: URL, form: [(String, String)]? = nil) async throws -> HTTPResponse {
            var headers: [(name: String, value: String)] = []
            if let header = environment.userHeader { headers.append((header, user)) }
            var body: Data?
            if let form {
                headers.append(("Content-Type", "application/x-www-form-urlencoded"))
                body = Data(ProviderFixtureForm.encode(form).utf8)
            }
            if environment.kind == .oidcProviderMock, method == "POST", form == nil {
                headers.append(("Content-Type", "application/x-www-form-urlencoded"))
                body = Data("sub=\(user)".utf8)
            }
            return try await transport.send(HTTPRequest(method: method, url: url, headers: headers, body: body))
        }

        /// DOT's login page (`/accounts/login/?next=…`): the authorization URL to continue with.
        static func loginPageContinuation(_ location: URL, base: URL) -> URL? {
            let components = URLComponents(url: location, resolvingAgainstBaseURL: false)
            guard components?.percentEncodedPath.hasSuffix("/accounts/login/") == true,
                let next = components?.queryItems?.first(where: { $0.name == "next" })?.value
            else { return nil }
            return URL(string: next, relativeTo: base)?.absoluteURL
        }

        /// A code-flow sign-in with `options`, verified with the checks they ask for.
        func signIn(options: AuthorizationRequestOptions) async throws -> (TokenResponse, VerifiedIDToken) {
            let pkce = try PKCE.generate()
            let state = try RandomToken.generate(byteCount: 16)
            let nonce = try RandomToken.generate(byteCount: 16)
            let url = try client.authorizationURL(codeChallenge: pkce.challenge, state: state, nonce: nonce, options: options)
            let answer = try await browse(environment.kind == .djangoOAuthToolkit ? "GET" : "POST", url)
            var location = try #require(answer.header("location").flatMap(URL.init(string:)), "no redirect (\(answer.status))")
            if let next = Self.loginPageContinuation(location, base: url) {
                // `prompt=login` sends the browser to the provider's login page; the person signs
                // in there (the test header), which continues the authorization request.
                let continued = try await browse("GET", next)
                location = try #require(continued.header("location").flatMap(URL.init(string:)), "no redirect (\(continued.status))")
            }
            let query = Dictionary(
                (URLComponents(url: location, resolvingAgainstBaseURL: false)?.queryItems ?? []).map { ($0.name, $0.value ?? "") },
                uniquingKeysWith: { first, _ in first })
            try #require(query["state"] == state, "the callback's state differs")
            let code = try #require(query["code"], "the callback carries no code (error: \(query["error"] ?? "none"))")
            let tokens = try await client.exchangeCode(Secret(code), codeVerifier: Secret(pkce.verifier))
            var expecting = IDTokenExpectations(
                issuer: environment.issuer, clientID: environment.clientID, nonce: nonce, accessToken: tokens.accessToken.value)
            expecting.maxAge = options.maxAgeToCheck
            expecting.requiredACRValues = options.essentialACRValues
            let verified = try IDTokenValidator.validate(
                try #require(tokens.idToken).value, keys: try await client.fetchKeys(), expecting: expecting, now: Date())
            return (tokens, verified)
        }
    }

    static func discoveryNamesTheNewEndpoints(_ environment: ProviderEnvironment) async throws {
        let rig = try await Rig(environment, user: "discovery")
        #expect(rig.configuration.userInfoEndpoint == environment.userInfoEndpoint)
        #expect(rig.configuration.endSessionEndpoint != nil)
        // Neither provider lists device authorization in its discovery document.
        #expect(rig.configuration.deviceAuthorizationEndpoint == nil)
    }

    static func maxAgeBringsAFreshAuthTime(_ environment: ProviderEnvironment) async throws {
        let rig = try await Rig(environment, user: "maxage")
        let before = Date().addingTimeInterval(-5)
        let (_, verified) = try await rig.signIn(options: try AuthorizationRequestOptions(prompt: [.login], maxAge: 60))
        let authTime = try #require(verified.claims.authenticationTime, "max_age was sent, so auth_time is required")
        #expect(authTime >= before.addingTimeInterval(-60))
        #expect(authTime <= Date().addingTimeInterval(60))
    }

    static func userInfoMatchesTheVerifiedSubject(_ environment: ProviderEnvironment) async throws {
        let rig = try await Rig(environment, user: "userinfo")
        let (tokens, verified) = try await rig.signIn(options: .empty)
        let info = try #require(
            try await rig.client.fetchUserInfo(accessToken: tokens.accessToken, expectedSubject: verified.claims.subject))
        #expect(info.subject == verified.claims.subject)
        await #expect(throws: UserInfoFetchError.rejected(.subjectMismatch)) {
            try await rig.client.fetchUserInfo(accessToken: tokens.accessToken, expectedSubject: verified.claims.subject + "-other")
        }
    }

    static func endSessionRedirectsBackWithTheState(_ environment: ProviderEnvironment) async throws {
        let rig = try await Rig(environment, user: "logout")
        let (tokens, _) = try await rig.signIn(options: .empty)
        let redirect = try #require(environment.postLogoutRedirectURI)
        let request = try EndSessionRequest(
            idTokenHint: tokens.idToken, postLogoutRedirectURI: redirect, state: Secret(try RandomToken.generate(byteCount: 16)))
        let url = try #require(rig.client.endSessionURL(for: request))

        var answer = try await rig.browse("GET", url)
        if environment.kind == .oidcProviderMock {
            // The mock shows a confirmation form first; the person presses "End session".
            #expect(answer.status == 200)
            let page = String(decoding: answer.body, as: UTF8.self)
            let target = try #require(hiddenField("redirect_uri", in: page), "the confirmation page names no redirect")
            answer = try await rig.browse(
                "POST", URL(string: environment.issuer + "/oauth2/end_session/confirm")!, form: [("redirect_uri", target)])
        }
        let location = try #require(answer.header("location").flatMap(URL.init(string:)), "no redirect (\(answer.status))")
        #expect(request.match(location) == .completed)
        let forged = try EndSessionRequest(idTokenHint: nil, postLogoutRedirectURI: redirect, state: Secret("another-state"))
        #expect(forged.match(location) == .refused(.stateMismatch))

        if environment.kind == .djangoOAuthToolkit {
            // DOT deletes the user's tokens at logout (OIDC_RP_INITIATED_LOGOUT_DELETE_TOKENS).
            let status = try await rig.transport.send(
                HTTPRequest(
                    method: "GET", url: environment.userInfoEndpoint, headers: [("Authorization", "Bearer \(tokens.accessToken.value)")])
            ).status
            #expect(status == 401)
        }
    }

    static func unregisteredPostLogoutRedirectIsRefused(_ environment: ProviderEnvironment) async throws {
        let rig = try await Rig(environment, user: "logout-bad")
        let (tokens, _) = try await rig.signIn(options: .empty)
        let request = try EndSessionRequest(
            idTokenHint: tokens.idToken, postLogoutRedirectURI: URL(string: "com.example.app:/not-registered")!, state: Secret("s"))
        let answer = try await rig.browse("GET", try #require(rig.client.endSessionURL(for: request)))
        #expect(answer.header("location") == nil, "a provider never redirects to an unregistered URI (got \(answer.status))")
    }

    /// Polls with the planner, in planner time: the provider does not enforce the interval, so
    /// nothing waits in real time. `approve` runs before the poll with that number.
    static func poll(
        _ client: ProviderClient, _ authorization: DeviceAuthorization, beforePoll number: Int, _ decide: () async throws -> Void
    ) async throws -> (DevicePollStep, [DevicePollAnswer]) {
        var planner = DevicePollPlanner(authorization)
        var step = planner.firstStep
        var elapsed = Duration.zero
        var answers: [DevicePollAnswer] = []
        while case .poll(let wait) = step, answers.count < 20 {
            elapsed += wait
            if answers.count + 1 == number { try await decide() }
            let answer: DevicePollAnswer
            do throws(ProviderError) {
                answer = .tokens(try await client.pollDeviceToken(authorization))
            } catch {
                answer = DevicePollAnswer(.failure(error))
            }
            answers.append(answer)
            step = planner.next(after: answer, elapsed: elapsed)
        }
        return (step, answers)
    }

    static func deviceSignInApprovedByAScriptedBrowser(_ environment: ProviderEnvironment) async throws {
        let rig = try await Rig(environment, user: "device")
        let (_, signedIn) = try await rig.signIn(options: .empty)
        var configuration = rig.configuration
        configuration.clientID = try #require(environment.deviceClientID)
        let endpoint: URL = try #require(environment.deviceAuthorizationEndpoint)
        configuration.deviceAuthorizationEndpoint = endpoint
        let client = ProviderClient(configuration: configuration, transport: rig.transport, now: { Date() })

        let authorization = try #require(try await client.requestDeviceAuthorization(scopes: ["openid"]))
        #expect(authorization.verificationURIComplete?.absoluteString.contains(authorization.userCode) == true)
        let (step, answers) = try await poll(client, authorization, beforePoll: 3) {
            // The person opens the verification page, enters the code, and accepts.
            let entered = try await rig.browse("POST", authorization.verificationURI, form: [("user_code", authorization.userCode)])
            let confirm = try #require(entered.header("location").flatMap { URL(string: $0, relativeTo: authorization.verificationURI) })
            let accepted = try await rig.browse("POST", confirm.absoluteURL, form: [("action", "accept")])
            #expect(accepted.status == 302)
        }
        #expect(Array(answers.dropLast()) == [.authorizationPending, .authorizationPending])
        guard case .finished(let tokens) = step else {
            Issue.record("the device sign-in did not finish: \(step)")
            return
        }
        if let idToken = tokens.idToken {
            let verified = try IDTokenValidator.validate(
                idToken.value, keys: try await client.fetchKeys(),
                expecting: IDTokenExpectations(issuer: environment.issuer, clientID: configuration.clientID), now: Date())
            #expect(verified.claims.subject == signedIn.claims.subject)
        }
        // The device's access token belongs to the person who approved it.
        let info = try #require(try await client.fetchUserInfo(accessToken: tokens.accessToken, expectedSubject: signedIn.claims.subject))
        #expect(info.subject == signedIn.claims.subject)
    }

    static func deviceSignInDenied(_ environment: ProviderEnvironment) async throws {
        let rig = try await Rig(environment, user: "device-deny")
        var configuration = rig.configuration
        configuration.clientID = try #require(environment.deviceClientID)
        let endpoint: URL = try #require(environment.deviceAuthorizationEndpoint)
        configuration.deviceAuthorizationEndpoint = endpoint
        let client = ProviderClient(configuration: configuration, transport: rig.transport, now: { Date() })
        let authorization = try #require(try await client.requestDeviceAuthorization(scopes: ["openid"]))
        let (step, _) = try await poll(client, authorization, beforePoll: 2) {
            let entered = try await rig.browse("POST", authorization.verificationURI, form: [("user_code", authorization.userCode)])
            let confirm = try #require(entered.header("location").flatMap { URL(string: $0, relativeTo: authorization.verificationURI) })
            _ = try await rig.browse("POST", confirm.absoluteURL, form: [("action", "deny")])
        }
        #expect(step == .failed(.accessDenied))
    }

    /// The value of `<input type="hidden" name="NAME" value="…">`, HTML entities decoded.
    static func hiddenField(_ name: String, in page: String) -> String? {
        guard let range = page.range(of: #"name="\#(name)" value=""#) else { return nil }
        let rest = page[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end]).replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "&#34;", with: "\"")
            .replacingOccurrences(of: "&quot;", with: "\"")
    }
}

/// Form encoding for the scripted browser.
enum ProviderFixtureForm {
    static func encode(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map {
            ($0.0.addingPercentEncoding(withAllowedCharacters: allowed) ?? "") + "="
                + ($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }
}
