public import Foundation
public import SessionKitCore
import SessionKitJOSE

/// What a sign-in asks of the provider beyond the fixed request: how to prompt the person, which
/// account to suggest, how fresh the authentication must be, which authentication context class,
/// which resources the tokens are for, and any provider-specific parameter.
///
/// Used per sign-in and as configuration defaults (``overriding(with:)`` layers the two). A value
/// is validated when it is built and again when it is rendered, so parameters the library owns
/// (`client_id`, `redirect_uri`, `response_type`, `scope`, `state`, `nonce`, `code_challenge*`) can
/// never be overridden. The checks that answer these options on the returned id_token are
/// ``maxAgeToCheck`` and ``essentialACRValues``.
///
/// ```swift
/// let stepUp = try AuthorizationRequestOptions(prompt: [.login], acr: .essential(["urn:mfa"]), maxAge: 300)
/// let url = try client.authorizationURL(codeChallenge: challenge, state: state, nonce: nonce, options: stepUp)
/// ```
public struct AuthorizationRequestOptions: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// A `prompt` value (OpenID Connect Core §3.1.2.1; `create` from Initiating User Registration 1.0).
    @nonexhaustive
    public enum Prompt: String, Sendable, Hashable, CaseIterable {
        /// No user interface at all: the provider answers `login_required` or similar instead.
        case none
        /// Authenticate again, even with a provider session.
        case login
        /// Ask for consent again.
        case consent
        /// Let the person choose among their accounts.
        case selectAccount = "select_account"
        /// Start with account creation.
        case create
    }

    /// Authentication context class references to ask for (`acr_values`, OIDC Core §3.1.2.1).
    @nonexhaustive
    public enum ACRRequest: Sendable, Hashable {
        /// A preference: any `acr` the provider returns is accepted.
        case voluntary([String])
        /// A requirement (§5.5.1.1): also sent as an essential `acr` claim request, and the
        /// returned id_token's `acr` must be one of the values (`acr_mismatch`).
        case essential([String])

        /// The values, in order of preference.
        public var values: [String] {
            switch self {
            case .voluntary(let values), .essential(let values): values
            }
        }
    }

    /// Whether the request asks for the `offline_access` scope (OIDC Core §11), which is how many
    /// providers decide whether to issue a refresh token.
    @nonexhaustive
    public enum OfflineAccessPolicy: Sendable, Hashable {
        /// The configured scopes go out unchanged; as a per-sign-in value, the default's policy applies.
        case asConfigured
        /// `offline_access` is added to the scopes, and `prompt` includes `consent` (§11).
        case request
        /// `offline_access` is added and `prompt` includes `consent`, which §11 requires of the
        /// provider unless it has other grounds to allow offline access; unlike the default
        /// consent of the other policies, also with `prompt=none` (which the request then refuses).
        case requestWithConsent
        /// `offline_access` is added (or kept from the configured scopes) without `prompt=consent`,
        /// for a provider that grants offline access on other grounds (§11: an earlier consent
        /// it keeps, or a policy of its own).
        case requestWithoutConsent
        /// `offline_access` is removed from the scopes, even when configured.
        case never
    }

    /// `prompt`: space-separated values; `none` stands alone.
    public var prompt: [Prompt]
    /// `login_hint`: the account to suggest (an e-mail address, a phone number, a user name).
    public var loginHint: String?
    /// `id_token_hint`: an id_token the provider issued earlier, naming the expected person; a
    /// token, so it is a `Secret`.
    public var idTokenHint: Secret?
    /// `ui_locales`: BCP 47 language tags for the provider's pages, in order of preference.
    public var uiLocales: [String]
    /// `acr_values`, voluntary or essential.
    public var acr: ACRRequest?
    /// `max_age`: the most seconds since the person last actively authenticated; the id_token
    /// must then carry `auth_time` (`missing_auth_time`) that recent (`auth_time_too_old`).
    public var maxAge: Int?
    /// RFC 8707 `resource` indicators, absolute URIs without a fragment; each is sent as its own
    /// `resource` parameter.
    public var resources: [URL]
    /// Provider-specific parameters by name, sent in name order after all others.
    public var additionalParameters: [String: String]
    /// Whether to ask for `offline_access`.
    public var offlineAccess: OfflineAccessPolicy

    /// Options from their values; all absent unless given.
    ///
    /// - Throws: ``AuthorizationRequestOptionsError`` for a reserved or typed extra parameter name,
    ///   `prompt=none` with another value, a negative `max_age`, essential `acr` without values, or
    ///   a resource indicator that is not an absolute URI without a fragment.
    public init(
        prompt: [Prompt] = [], loginHint: String? = nil, idTokenHint: Secret? = nil, uiLocales: [String] = [],
        acr: ACRRequest? = nil, maxAge: Int? = nil, resources: [URL] = [], additionalParameters: [String: String] = [:],
        offlineAccess: OfflineAccessPolicy = .asConfigured
    ) throws(AuthorizationRequestOptionsError) {
        self.prompt = prompt
        self.loginHint = loginHint
        self.idTokenHint = idTokenHint
        self.uiLocales = uiLocales
        self.acr = acr
        self.maxAge = maxAge
        self.resources = resources
        self.additionalParameters = additionalParameters
        self.offlineAccess = offlineAccess
        try validate()
    }

    /// No options: the fixed request the library always sends.
    public static let empty = AuthorizationRequestOptions(unchecked: ())

    private init(unchecked: Void) {
        prompt = []
        uiLocales = []
        resources = []
        additionalParameters = [:]
        offlineAccess = .asConfigured
    }

    /// Names the library sets itself; `code_challenge*` is matched as a prefix.
    public static let reservedParameterNames: Set<String> = [
        "client_id", "redirect_uri", "response_type", "scope", "state", "nonce", "code_challenge", "code_challenge_method",
        "dpop_jkt",
    ]

    /// Names a typed option renders.
    public static let typedParameterNames: Set<String> = [
        "prompt", "login_hint", "id_token_hint", "ui_locales", "acr_values", "max_age", "resource", "claims",
    ]

    /// Checks the rules ``init(prompt:loginHint:idTokenHint:uiLocales:acr:maxAge:resources:additionalParameters:offlineAccess:)``
    /// checks; for a value changed after it was built.
    public func validate() throws(AuthorizationRequestOptionsError) {
        for name in additionalParameters.keys.sorted() {
            guard !name.isEmpty else { throw .emptyParameterName }
            if Self.reservedParameterNames.contains(name) || name.hasPrefix("code_challenge") {
                throw .reservedParameter(name)
            }
            if Self.typedParameterNames.contains(name) { throw .typedParameter(name) }
        }
        let prompts = effectivePrompt
        if prompts.contains(.none), prompts.count > 1 { throw .promptNoneWithOthers }
        if let maxAge, maxAge < 0 { throw .negativeMaxAge }
        if case .essential(let values)? = acr, values.isEmpty { throw .essentialACRWithoutValues }
        for (index, resource) in resources.enumerated() {
            let components = URLComponents(url: resource, resolvingAgainstBaseURL: false)
            guard let scheme = components?.scheme, !scheme.isEmpty, components?.fragment == nil else {
                throw .invalidResource(index: index)
            }
        }
    }

    /// The `prompt` values the options themselves ask for: ``prompt`` without repeats, plus
    /// `consent` under ``OfflineAccessPolicy/requestWithConsent``.
    var effectivePrompt: [Prompt] {
        var values: [Prompt] = []
        for value in prompt where !values.contains(value) {
            values.append(value)
        }
        if offlineAccess == .requestWithConsent, !values.contains(.consent) { values.append(.consent) }
        return values
    }

    /// The `prompt` values sent with `scopes`: ``effectivePrompt``, plus `consent` whenever
    /// `offline_access` is among the scopes (OpenID Connect Core §11: a provider must ignore an
    /// offline-access request without it, unless other conditions permit), except under
    /// ``OfflineAccessPolicy/requestWithoutConsent`` and with `prompt=none`, which stands alone.
    func prompt(sendingScopes scopes: [String]) -> [Prompt] {
        var values = effectivePrompt
        guard scopes.contains("offline_access"), offlineAccess != .requestWithoutConsent else { return values }
        if !values.contains(.consent), !values.contains(.none) { values.append(.consent) }
        return values
    }

    /// The scopes sent, from the configured ones and the offline-access policy.
    func scopes(from configured: [String]) -> [String] {
        switch offlineAccess {
        case .asConfigured: configured
        case .request, .requestWithConsent, .requestWithoutConsent:
            configured.contains("offline_access") ? configured : configured + ["offline_access"]
        case .never: configured.filter { $0 != "offline_access" }
        }
    }

    /// The `max_age` the returned id_token's `auth_time` must satisfy, for
    /// `IDTokenExpectations.maxAge`.
    public var maxAgeToCheck: Double? { maxAge.map(Double.init) }

    /// The `acr` values the returned id_token must carry one of, for
    /// `IDTokenExpectations.requiredACRValues`; empty unless the request was essential.
    public var essentialACRValues: [String] {
        if case .essential(let values)? = acr { return values }
        return []
    }

    /// These options with every value `other` sets taking the place of this one's: a per-sign-in
    /// value over configuration defaults. Lists and hints replace when `other` has any; extra
    /// parameters merge, `other`'s winning; the offline policy replaces unless `other` says
    /// ``OfflineAccessPolicy/asConfigured``.
    public func overriding(with other: AuthorizationRequestOptions) -> AuthorizationRequestOptions {
        var merged = self
        if !other.prompt.isEmpty { merged.prompt = other.prompt }
        merged.loginHint = other.loginHint ?? loginHint
        merged.idTokenHint = other.idTokenHint ?? idTokenHint
        if !other.uiLocales.isEmpty { merged.uiLocales = other.uiLocales }
        merged.acr = other.acr ?? acr
        merged.maxAge = other.maxAge ?? maxAge
        if !other.resources.isEmpty { merged.resources = other.resources }
        merged.additionalParameters.merge(other.additionalParameters) { _, new in new }
        if other.offlineAccess != .asConfigured { merged.offlineAccess = other.offlineAccess }
        return merged
    }

    /// The parameters these options add to an authorization request that asks for `scopes`, in
    /// the order they are sent.
    func parameters(scopes: [String]) -> [(String, String)] {
        var fields: [(String, String)] = []
        let prompts = prompt(sendingScopes: scopes)
        if !prompts.isEmpty { fields.append(("prompt", prompts.map(\.rawValue).joined(separator: " "))) }
        if let maxAge { fields.append(("max_age", String(maxAge))) }
        if let loginHint { fields.append(("login_hint", loginHint)) }
        if let idTokenHint { fields.append(("id_token_hint", idTokenHint.value)) }
        if !uiLocales.isEmpty { fields.append(("ui_locales", uiLocales.joined(separator: " "))) }
        if let acr, !acr.values.isEmpty {
            fields.append(("acr_values", acr.values.joined(separator: " ")))
            if case .essential(let values) = acr {
                let list = values.map { JSONWriter.quoted($0) }.joined(separator: ",")
                fields.append(("claims", #"{"id_token":{"acr":{"essential":true,"values":["# + list + "]}}}"))
            }
        }
        for resource in resources {
            fields.append(("resource", resource.absoluteString))
        }
        for name in additionalParameters.keys.sorted() {
            fields.append((name, additionalParameters[name] ?? ""))
        }
        return fields
    }

    /// The options with the hint token redacted and extra parameters by name only.
    public var description: String {
        var parts: [String] = []
        if !prompt.isEmpty { parts.append("prompt: \(prompt.map(\.rawValue))") }
        if loginHint != nil { parts.append("loginHint: <present>") }
        if idTokenHint != nil { parts.append("idTokenHint: <redacted>") }
        if !uiLocales.isEmpty { parts.append("uiLocales: \(uiLocales)") }
        if let acr { parts.append("acr: \(acr)") }
        if let maxAge { parts.append("maxAge: \(maxAge)") }
        if !resources.isEmpty { parts.append("resources: \(resources.map(\.absoluteString))") }
        if !additionalParameters.isEmpty { parts.append("additionalParameters: \(additionalParameters.keys.sorted())") }
        parts.append("offlineAccess: \(offlineAccess)")
        return "AuthorizationRequestOptions(" + parts.joined(separator: ", ") + ")"
    }

    /// Shows what ``description`` shows, so `dump` prints no hint and no extra parameter value.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "prompt": prompt, "hasLoginHint": loginHint != nil, "hasIDTokenHint": idTokenHint != nil, "uiLocales": uiLocales,
                "acr": acr as Any, "maxAge": maxAge as Any, "resources": resources,
                "additionalParameterNames": additionalParameters.keys.sorted(), "offlineAccess": offlineAccess,
            ], displayStyle: .struct)
    }
}
