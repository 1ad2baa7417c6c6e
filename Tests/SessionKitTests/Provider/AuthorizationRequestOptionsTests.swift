import Foundation
import SessionKitJOSE
import Testing

@testable import SessionKit

/// Authorization request options (OIDC Core §3.1.2.1, §11, RFC 8707): what they render, what they
/// refuse, and how defaults and per-sign-in values combine.
@Suite struct AuthorizationRequestOptionsTests {
    private func client() throws -> ProviderClient {
        ProviderClient(
            configuration: try ProviderTestKeys.configuration(), transport: RecordingTransport(always: .json(500, "{}")),
            now: { Date(timeIntervalSince1970: 0) })
    }

    private func query(_ options: AuthorizationRequestOptions) throws -> String {
        let url = try client().authorizationURL(codeChallenge: "c", state: "s", nonce: "n", options: options)
        return try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.percentEncodedQuery)
    }

    private static let fixed =
        "response_type=code&client_id=app-client&redirect_uri=com.example.app%3A%2Foauth%2Fcallback"
        + "&scope=openid%20profile%3Abasic%20email&state=s&nonce=n&code_challenge=c&code_challenge_method=S256"

    @Test func noOptionsRenderTheFixedRequest() throws {
        let client = try client()
        let plain = client.authorizationURL(codeChallenge: "c", state: "s", nonce: "n")
        #expect(try client.authorizationURL(codeChallenge: "c", state: "s", nonce: "n", options: .empty) == plain)
        #expect(try query(.empty) == Self.fixed)
        let loopback = URL(string: "http://127.0.0.1:50123/callback")!
        #expect(
            try client.authorizationURL(codeChallenge: "c", state: "s", nonce: "n", redirectURI: loopback, options: .empty)
                == client.authorizationURL(codeChallenge: "c", state: "s", nonce: "n", redirectURI: loopback))
    }

    @Test func everyOptionIsRenderedInItsFixedOrder() throws {
        let options = try AuthorizationRequestOptions(
            prompt: [.login, .consent], loginHint: "alice@example.com", idTokenHint: Secret("eyJ.hint.sig"),
            uiLocales: ["fr-CA", "fr", "en"], acr: .voluntary(["urn:silver", "urn:gold"]), maxAge: 300,
            resources: [URL(string: "https://api.example.com/")!, URL(string: "urn:example:calendar")!],
            additionalParameters: ["tenant": "acme corp", "audience": "x"])
        #expect(
            try query(options)
                == Self.fixed + "&prompt=login%20consent&max_age=300&login_hint=alice%40example.com&id_token_hint=eyJ.hint.sig"
                + "&ui_locales=fr-CA%20fr%20en&acr_values=urn%3Asilver%20urn%3Agold"
                + "&resource=https%3A%2F%2Fapi.example.com%2F&resource=urn%3Aexample%3Acalendar&audience=x&tenant=acme%20corp")
    }

    @Test func essentialACRAlsoRequestsTheClaimAsEssential() throws {
        let options = try AuthorizationRequestOptions(acr: .essential(["urn:mfa", #"q"x"#]))
        let url = try client().authorizationURL(codeChallenge: "c", state: "s", nonce: "n", options: options)
        let items = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems)
        #expect(items.first { $0.name == "acr_values" }?.value == #"urn:mfa q"x"#)
        #expect(items.first { $0.name == "claims" }?.value == #"{"id_token":{"acr":{"essential":true,"values":["urn:mfa","q\"x"]}}}"#)
        #expect(options.essentialACRValues == ["urn:mfa", #"q"x"#])
        #expect(try AuthorizationRequestOptions(acr: .voluntary(["urn:mfa"])).essentialACRValues.isEmpty)
    }

    @Test func theIDTokenChecksFollowTheOptions() throws {
        #expect(try AuthorizationRequestOptions(maxAge: 0).maxAgeToCheck == 0)
        #expect(try AuthorizationRequestOptions(prompt: [.login]).maxAgeToCheck == nil)
        let base = IDTokenExpectations(issuer: "https://id.example.com", clientID: "app-client", nonce: "n")
        let stepUp = base.requiring(try AuthorizationRequestOptions(acr: .essential(["urn:mfa"]), maxAge: 120))
        #expect(stepUp.maxAge == 120)
        #expect(stepUp.requiredACRValues == ["urn:mfa"])
        #expect(stepUp.nonce == "n" && stepUp.issuer == base.issuer)
        let voluntary = base.requiring(try AuthorizationRequestOptions(acr: .voluntary(["urn:mfa"])))
        #expect(voluntary == base)
    }

    @Test(arguments: AuthorizationRequestOptions.reservedParameterNames.sorted() + ["code_challenge_extra"])
    func aReservedNameIsRefused(_ name: String) {
        #expect(throws: AuthorizationRequestOptionsError.reservedParameter(name)) {
            try AuthorizationRequestOptions(additionalParameters: [name: "attacker"])
        }
    }

    @Test(arguments: AuthorizationRequestOptions.typedParameterNames.sorted())
    func aNameWithATypedOptionIsRefused(_ name: String) {
        #expect(throws: AuthorizationRequestOptionsError.typedParameter(name)) {
            try AuthorizationRequestOptions(additionalParameters: [name: "x"])
        }
    }

    @Test func invalidCombinationsAreRefused() throws {
        #expect(throws: AuthorizationRequestOptionsError.emptyParameterName) {
            try AuthorizationRequestOptions(additionalParameters: ["": "x"])
        }
        #expect(throws: AuthorizationRequestOptionsError.promptNoneWithOthers) { try AuthorizationRequestOptions(prompt: [.none, .login]) }
        #expect(throws: AuthorizationRequestOptionsError.promptNoneWithOthers) {
            try AuthorizationRequestOptions(prompt: [.none], offlineAccess: .requestWithConsent)
        }
        #expect(throws: AuthorizationRequestOptionsError.negativeMaxAge) { try AuthorizationRequestOptions(maxAge: -1) }
        #expect(throws: AuthorizationRequestOptionsError.essentialACRWithoutValues) { try AuthorizationRequestOptions(acr: .essential([])) }
        #expect(throws: AuthorizationRequestOptionsError.invalidResource(index: 1)) {
            try AuthorizationRequestOptions(resources: [
                URL(string: "https://api.example.com")!, URL(string: "https://api.example.com/#frag")!,
            ])
        }
        #expect(throws: AuthorizationRequestOptionsError.invalidResource(index: 0)) {
            try AuthorizationRequestOptions(resources: [URL(string: "relative/path")!])
        }
        // prompt=none alone is fine, and a repeated value is sent once.
        #expect(try query(AuthorizationRequestOptions(prompt: [.none])).hasSuffix("&prompt=none"))
        #expect(try query(AuthorizationRequestOptions(prompt: [.login, .login])).hasSuffix("&prompt=login"))
    }

    @Test func aValueChangedAfterItWasBuiltIsCheckedWhenRendered() throws {
        var options = try AuthorizationRequestOptions(prompt: [.login])
        options.additionalParameters["state"] = "forged"
        #expect(throws: AuthorizationRequestOptionsError.reservedParameter("state")) {
            try client().authorizationURL(codeChallenge: "c", state: "s", nonce: "n", options: options)
        }
    }

    @Test func theOfflineAccessPolicyShapesScopeAndPrompt() throws {
        #expect(
            try query(AuthorizationRequestOptions(offlineAccess: .request)).contains(
                "&scope=openid%20profile%3Abasic%20email%20offline_access&"))
        let consent = try query(AuthorizationRequestOptions(prompt: [.login], offlineAccess: .requestWithConsent))
        #expect(consent.contains("%20offline_access&"))
        #expect(consent.hasSuffix("&prompt=login%20consent"))

        let base = try ProviderTestKeys.configuration()
        let configured = try ProviderConfiguration(
            issuer: base.issuer, clientID: base.clientID, redirectURI: base.redirectURI, scopes: ["openid", "offline_access", "email"],
            authorizationEndpoint: base.authorizationEndpoint, tokenEndpoint: base.tokenEndpoint, jwksURI: base.jwksURI)
        let client = ProviderClient(configuration: configured, transport: RecordingTransport(always: .json(500, "{}")), now: { Date() })
        func scope(_ policy: AuthorizationRequestOptions.OfflineAccessPolicy) throws -> String? {
            let url = try client.authorizationURL(
                codeChallenge: "c", state: "s", nonce: "n", options: AuthorizationRequestOptions(offlineAccess: policy))
            return URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "scope" }?.value
        }
        #expect(try scope(.asConfigured) == "openid offline_access email")
        #expect(try scope(.request) == "openid offline_access email")
        #expect(try scope(.requestWithoutConsent) == "openid offline_access email")
        #expect(try scope(.never) == "openid email")

        // OIDC Core §11: offline_access goes out with prompt=consent, whether configured or added,
        // unless the policy says the provider grants it otherwise; prompt=none stands alone.
        func prompt(_ options: AuthorizationRequestOptions) throws -> String? {
            let url = try client.authorizationURL(codeChallenge: "c", state: "s", nonce: "n", options: options)
            return URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "prompt" }?.value
        }
        #expect(try prompt(AuthorizationRequestOptions(offlineAccess: .asConfigured)) == "consent")
        #expect(try prompt(AuthorizationRequestOptions(prompt: [.login], offlineAccess: .request)) == "login consent")
        #expect(try prompt(AuthorizationRequestOptions(prompt: [.consent, .login])) == "consent login")
        #expect(try prompt(AuthorizationRequestOptions(offlineAccess: .requestWithoutConsent)) == nil)
        #expect(try prompt(AuthorizationRequestOptions(prompt: [.none])) == "none")
        #expect(try prompt(AuthorizationRequestOptions(offlineAccess: .never)) == nil)
        #expect(try query(AuthorizationRequestOptions()).contains("prompt=") == false)
    }

    @Test func perSignInValuesOverrideDefaults() throws {
        let defaults = try AuthorizationRequestOptions(
            prompt: [.selectAccount], uiLocales: ["de"], maxAge: 3600, additionalParameters: ["tenant": "a", "region": "eu"],
            offlineAccess: .request)
        let perSignIn = try AuthorizationRequestOptions(prompt: [.login], maxAge: 60, additionalParameters: ["tenant": "b"])
        let merged = defaults.overriding(with: perSignIn)
        #expect(merged.prompt == [.login])
        #expect(merged.uiLocales == ["de"])
        #expect(merged.maxAge == 60)
        #expect(merged.additionalParameters == ["tenant": "b", "region": "eu"])
        #expect(merged.offlineAccess == .request)
        #expect(defaults.overriding(with: try AuthorizationRequestOptions(offlineAccess: .never)).offlineAccess == .never)
        #expect(defaults.overriding(with: .empty) == defaults)
    }

    @Test func renderingsShowNoHintAndNoExtraValue() throws {
        let options = try AuthorizationRequestOptions(
            loginHint: "alice@example.com", idTokenHint: Secret("eyJ.secret-hint.sig"), maxAge: 30,
            additionalParameters: ["tenant": "tenant-value-xyz"])
        var dumped = ""
        dump(options, to: &dumped)
        for text in [options.description, String(reflecting: options), "\(options)", dumped] {
            #expect(!text.contains("secret-hint"))
            #expect(!text.contains("alice@example.com"))
            #expect(!text.contains("tenant-value-xyz"))
            #expect(text.contains("tenant"))
        }
        #expect(!AuthorizationRequestOptionsError.reservedParameter("state").description.isEmpty)
    }
}
