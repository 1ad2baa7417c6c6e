public import Foundation
import SessionKitJOSE

/// Sender-constrains a session's requests with DPoP (RFC 9449): one middleware in the chain, not
/// a branch in each call.
///
/// For the token, revocation, device authorization and UserInfo endpoints it adds a fresh proof
/// (`DPoP` header) signed with the key in ``keys``; a request that presents a DPoP-bound access
/// token as `Bearer` is sent as `Authorization: DPoP …` with the token's hash (`ath`) in the
/// proof. The key's thumbprint goes on the authorization request as `dpop_jkt` (§10), so the code
/// is bound as well. Nonces (§8, §9) are kept per server in ``nonces``, replaced by every answer
/// that carries one. An answer that asks for a nonce (`use_dpop_nonce`) and gives a new one is
/// not resent here: it is thrown as ``DPoPFailure/Code/useNonce``, and the one retry with a fresh
/// proof carrying the nonce is a step of whoever sent the request (the session's procedures).
///
/// Token responses are checked: `token_type` must be `DPoP` when ``requirement`` is
/// ``Requirement/required`` (``DPoPFailure/Code/bearerWhereRequired``), and once the key's access
/// token was bound a `Bearer` answer is a downgrade (``DPoPFailure/Code/downgraded``), never
/// silently accepted; a `cnf.jkt` in a JWT access token or in the response must be the key's
/// thumbprint (``DPoPFailure/Code/thumbprintMismatch``). A DPoP refusal from the server
/// (`invalid_dpop_proof`, or `use_dpop_nonce` without a new nonce) is the provider's answer with
/// its code, never read as a refused grant.
public struct DPoPMiddleware: RequestMiddleware {
    /// What the session accepts from the provider. A later policy (one read from discovery's
    /// `dpop_signing_alg_values_supported`) may be added, so switch with `@unknown default`.
    @nonexhaustive
    public enum Requirement: Sendable, Hashable {
        /// Proofs are sent; a provider that answers with `Bearer` tokens is accepted, and those
        /// tokens are presented as `Bearer`.
        case whenIssued
        /// Proofs are sent and every token response must say `DPoP`.
        case required
    }

    /// The session's key.
    public let keys: DPoPKeyHolder
    /// The nonces each server gave.
    public let nonces: DPoPNonceCache
    /// Whether a `Bearer` token response is accepted.
    public let requirement: Requirement
    /// The wall clock for `iat`.
    let now: @Sendable () -> Date

    /// A middleware signing with the key in `keys`; `now` is the injected wall clock.
    public init(
        keys: DPoPKeyHolder, nonces: DPoPNonceCache = DPoPNonceCache(), requirement: Requirement = .required,
        now: @escaping @Sendable () -> Date
    ) {
        self.keys = keys
        self.nonces = nonces
        self.requirement = requirement
        self.now = now
    }

    /// `dpop_jkt` with the current key's thumbprint (RFC 9449 §10).
    public func authorizationParameters() -> [(name: String, value: String)] {
        keys.thumbprint.map { [("dpop_jkt", $0)] } ?? []
    }

    public func intercept(
        _ request: HTTPRequest, endpoint: ProviderEndpoint,
        next: @Sendable (HTTPRequest) async throws(ProviderError) -> HTTPResponse
    ) async throws(ProviderError) -> HTTPResponse {
        guard let signer = keys.signer, Self.signedEndpoints.contains(endpoint) else { return try await next(request) }
        let sentNonce = nonces.nonce(for: request.url)
        let response = try await next(try prepare(request, signer: signer, nonce: sentNonce))
        remember(response, for: request.url)
        if Self.asksForNonce(response), let fresh = nonces.nonce(for: request.url), fresh != sentNonce {
            // The refusal gave a nonce the request did not carry (§8.1, §9.1): whoever sent the
            // request decides whether to send it once more, as a step of its own.
            throw .dpop(DPoPFailure(.useNonce))
        }
        try check(response, endpoint: endpoint, signer: signer)
        return response
    }

    /// The endpoints a proof goes to; the signing keys, the disconnect (a device key, not an
    /// access token) and the guest bootstrap are not DPoP requests.
    static let signedEndpoints: Set<ProviderEndpoint> = [.token, .revocation, .deviceAuthorization, .userInfo]

    /// `request` with a proof, and with a bound access token presented under the `DPoP` scheme.
    func prepare(_ request: HTTPRequest, signer: DPoPProofSigner, nonce: DPoPNonce?) throws(ProviderError) -> HTTPRequest {
        guard let htu = DPoPTargetURI.normalized(request.url) else { throw .invalidResponse("request URL has no origin") }
        var request = request
        var accessToken: String?
        if keys.accessTokenIsBound, let index = request.headers.firstIndex(where: { Self.isAuthorization($0.name) }),
            let token = Self.bearerToken(request.headers[index].value)
        {
            accessToken = token
            request.headers[index].value = "DPoP " + token
        }
        let issuedAt = Int64(now().timeIntervalSince1970.rounded(.down))
        let proof: String
        do {
            proof = try signer.proof(
                method: request.method, targetURI: htu, issuedAt: issuedAt, accessToken: accessToken, nonce: nonce?.value)
        } catch {
            throw .invalidResponse("a DPoP proof could not be signed")
        }
        request.headers.removeAll { ASCII.caseInsensitiveEquals($0.name, "DPoP") }
        request.headers.append(("DPoP", proof))
        return request
    }

    private func remember(_ response: HTTPResponse, for url: URL) {
        if let value = response.header("DPoP-Nonce"), let nonce = try? DPoPNonce(headerValue: value) {
            nonces.remember(nonce, for: url)
        }
    }

    /// Whether the answer is `use_dpop_nonce`: a 400 with that OAuth error from the authorization
    /// server (§8), or a 401 whose `DPoP` challenge names it from a resource (§9).
    static func asksForNonce(_ response: HTTPResponse) -> Bool {
        dpopError(response) == "use_dpop_nonce"
    }

    /// The DPoP error of a refusal, from the JSON `error` of a 400 or the `DPoP` challenge of a 401.
    static func dpopError(_ response: HTTPResponse) -> String? {
        switch response.status {
        case 400:
            guard let object = try? JSONParser.parseObject(Array(response.body), maximumDepth: 8),
                let error = object["error"]?.stringValue
            else { return nil }
            return error == "use_dpop_nonce" || error == "invalid_dpop_proof" ? error : nil
        case 401:
            guard let field = response.header("WWW-Authenticate"),
                let challenges = try? AuthenticationChallenge.parse(field),
                let error = challenges.first(where: { $0.hasScheme("DPoP") })?.parameter("error")
            else { return nil }
            return error == "use_dpop_nonce" || error == "invalid_dpop_proof" ? error : nil
        default:
            return nil
        }
    }

    /// Refuses what a DPoP session must not accept, and records whether the new access token is bound.
    func check(_ response: HTTPResponse, endpoint: ProviderEndpoint, signer: DPoPProofSigner) throws(ProviderError) {
        if let error = Self.dpopError(response) {
            // The answer as it came, with its code: the session's one table reads a DPoP refusal as
            // never a verdict on the grant, and never as one that passes by waiting.
            throw .http(status: response.status, error: error, retryAfterSeconds: nil, excerpt: "")
        }
        guard endpoint == .token, response.status == 200 else { return }
        guard let object = try? JSONParser.parseObject(Array(response.body), maximumDepth: 64) else { return }
        let tokenType = object["token_type"]?.stringValue ?? ""
        let bound = ASCII.caseInsensitiveEquals(tokenType, "dpop")
        if !bound, keys.accessTokenIsBound {
            // The session's tokens were bound and this answer is not: never a silent downgrade.
            throw .dpop(DPoPFailure(.downgraded))
        }
        if !bound, requirement == .required {
            throw .dpop(DPoPFailure(.bearerWhereRequired))
        }
        var confirmations: [String] = []
        if let jkt = object["cnf"]?.objectValue?["jkt"]?.stringValue { confirmations.append(jkt) }
        if let accessToken = object["access_token"]?.stringValue, let jkt = Self.accessTokenConfirmation(accessToken) {
            confirmations.append(jkt)
        }
        guard confirmations.allSatisfy({ $0 == signer.thumbprint }) else {
            throw .dpop(DPoPFailure(.thumbprintMismatch))
        }
        keys.recordAccessToken(bound: bound)
    }

    /// The `cnf.jkt` of a JWT access token (RFC 9449 §6.1), when the token is a JWT that has one.
    static func accessTokenConfirmation(_ token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = try? Base64URL.decode(parts[1]),
            let claims = try? JSONParser.parseObject(payload, maximumDepth: 16)
        else { return nil }
        return claims["cnf"]?.objectValue?["jkt"]?.stringValue
    }

    private static func isAuthorization(_ name: String) -> Bool {
        ASCII.caseInsensitiveEquals(name, "Authorization")
    }

    /// The token of a `Bearer` credential, scheme matched case-insensitively.
    private static func bearerToken(_ value: String) -> String? {
        guard value.utf8.count > 7, ASCII.caseInsensitiveEquals(String(value.prefix(7)), "Bearer ") else { return nil }
        return String(value.dropFirst(7))
    }
}
