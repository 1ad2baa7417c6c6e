import SessionKitCore
import SessionKitJOSE

#if canImport(FoundationNetworking)
    import Foundation
    public import FoundationNetworking
#else
    public import Foundation
#endif

extension Session {
    /// `request` with the session's credentials for a resource server: `Authorization: Bearer …`,
    /// or, when the access token is DPoP-bound (RFC 9449 §7), `Authorization: DPoP …` with a fresh
    /// `DPoP` proof for the request's method and URL, carrying the token's hash (`ath`) and the
    /// latest nonce that origin gave (§9). Any `Authorization` and `DPoP` fields it had are replaced.
    ///
    /// The token is ``validAccessToken()``'s: the current one, or a fresh one when it is due. A proof
    /// is good for one request: authorize again for each send. ``send(_:)`` does this and handles
    /// the answers that ask for a new token or a nonce.
    ///
    /// - Throws: ``AuthorizedRequestError`` — ``AuthorizedRequestError/Code/session`` when the
    ///   session has no token to give, ``AuthorizedRequestError/Code/invalidRequest`` for a URL
    ///   without an `http` or `https` origin, ``AuthorizedRequestError/Code/proofFailed`` when the
    ///   proof cannot be signed.
    public func authorize(_ request: URLRequest) async throws(AuthorizedRequestError) -> URLRequest {
        let outgoing = try Self.httpRequest(from: request)
        let token = try await currentToken()
        let fields = try authorizationFields(method: outgoing.method, url: outgoing.url, token: token)
        var authorized = request
        authorized.setValue(nil, forHTTPHeaderField: "DPoP")
        for field in fields { authorized.setValue(field.value, forHTTPHeaderField: field.name) }
        return authorized
    }

    /// Sends `request` to a resource server through the session's transport with the session's
    /// credentials (see ``authorize(_:)``), and returns the answer, whatever its status.
    ///
    /// Two answers are handled here, each at most once per call:
    /// - a `401` whose challenge says `invalid_token` (RFC 6750 §3.1): the token the server refused
    ///   is replaced by a newer one — the session's current one when another caller already
    ///   refreshed, else the result of ``refresh()``, which concurrent callers share — and the
    ///   request is sent once more;
    /// - a `401` whose `DPoP` challenge says `use_dpop_nonce` (RFC 9449 §9) and that carries a new
    ///   `DPoP-Nonce`: sent once more with a proof carrying it.
    ///
    /// So one call sends the request at most three times and costs at most one refresh. Every
    /// `DPoP-Nonce` an answer carries is kept for its origin. The request's body is sent as it is on
    /// each attempt.
    ///
    /// ```swift
    /// var request = URLRequest(url: URL(string: "https://api.example.com/v1/me")!)
    /// request.setValue("application/json", forHTTPHeaderField: "Accept")
    /// let response = try await session.send(request)
    /// if response.status == 200 { show(try JSONDecoder().decode(Me.self, from: response.body)) }
    /// ```
    ///
    /// - Throws: ``AuthorizedRequestError``, as ``authorize(_:)`` does, and
    ///   ``AuthorizedRequestError/Code/transport`` when the transport fails. A refresh the session
    ///   could not make is ``AuthorizedRequestError/Code/session`` with the session's error.
    public func send(_ request: URLRequest) async throws(AuthorizedRequestError) -> HTTPResponse {
        let base = try Self.httpRequest(from: request)
        var token = try await currentToken()
        var refreshed = false
        var nonceRetried = false
        while true {
            var outgoing = base
            let fields = try authorizationFields(method: base.method, url: base.url, token: token)
            outgoing.headers.append(contentsOf: fields)
            let nonceSent = requestDPoP?.nonces.nonce(for: base.url)
            let response: HTTPResponse
            do {
                response = try await client.transport.send(outgoing)
            } catch {
                throw .transport(error)
            }
            rememberNonce(of: response, for: base.url)
            guard response.status == 401 else { return response }
            let presentedAsDPoP = fields.contains { $0.name == "DPoP" }
            switch Self.challengeError(of: response, scheme: presentedAsDPoP ? "DPoP" : "Bearer") {
            case "use_dpop_nonce" where presentedAsDPoP && !nonceRetried:
                guard let fresh = requestDPoP?.nonces.nonce(for: base.url), fresh != nonceSent else { return response }
                nonceRetried = true
            case "invalid_token" where !refreshed:
                refreshed = true
                token = try await newerToken(than: token)
            default:
                return response
            }
        }
    }

    /// The `Authorization` field (and the `DPoP` proof, for a bound token) for one request.
    func authorizationFields(
        method: String, url: URL, token: AccessToken
    ) throws(AuthorizedRequestError) -> [(name: String, value: String)] {
        guard let dpop = requestDPoP, dpop.keys.accessTokenIsBound, let signer = dpop.keys.signer else {
            return [("Authorization", "Bearer " + token.secret.value)]
        }
        guard let htu = DPoPTargetURI.normalized(url) else { throw .invalidRequest }
        let proof: String
        do {
            proof = try signer.proof(
                method: method, targetURI: htu, issuedAt: Int64(dpop.now().timeIntervalSince1970.rounded(.down)),
                accessToken: token.secret.value, nonce: dpop.nonces.nonce(for: url)?.value)
        } catch {
            throw .proofFailed
        }
        return [("Authorization", "DPoP " + token.secret.value), ("DPoP", proof)]
    }

    private func currentToken() async throws(AuthorizedRequestError) -> AccessToken {
        do {
            return try await validAccessToken()
        } catch {
            throw .session(error)
        }
    }

    /// A token other than `refused`: the session's current one when another caller has refreshed
    /// since, else a refresh (shared with every caller asking at the same time).
    private func newerToken(than refused: AccessToken) async throws(AuthorizedRequestError) -> AccessToken {
        do {
            let current = try await validAccessToken()
            if current.secret != refused.secret { return current }
            return try await refresh()
        } catch {
            throw .session(error)
        }
    }

    private func rememberNonce(of response: HTTPResponse, for url: URL) {
        guard let dpop = requestDPoP, let value = response.header("DPoP-Nonce"), let nonce = try? DPoPNonce(headerValue: value) else {
            return
        }
        dpop.nonces.remember(nonce, for: url)
    }

    /// The `error` parameter of the 401's challenge for `scheme`, or of its first challenge that
    /// names one; nil when the field is absent or unreadable.
    static func challengeError(of response: HTTPResponse, scheme: String) -> String? {
        guard let field = response.header("WWW-Authenticate"), let challenges = try? AuthenticationChallenge.parse(field) else {
            return nil
        }
        if let error = challenges.first(where: { $0.hasScheme(scheme) })?.parameter("error") { return error }
        return challenges.lazy.compactMap { $0.parameter("error") }.first
    }

    /// The request as the transport takes it: method (GET by default), URL, header fields in name
    /// order without `Authorization` and `DPoP`, and the body.
    static func httpRequest(from request: URLRequest) throws(AuthorizedRequestError) -> HTTPRequest {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = url.host, !host.isEmpty, request.httpBodyStream == nil
        else { throw .invalidRequest }
        let headers = (request.allHTTPHeaderFields ?? [:])
            .filter { !ASCII.caseInsensitiveEquals($0.key, "Authorization") && !ASCII.caseInsensitiveEquals($0.key, "DPoP") }
            .sorted { $0.key < $1.key }
            .map { (name: $0.key, value: $0.value) }
        return HTTPRequest(method: request.httpMethod ?? "GET", url: url, headers: headers, body: request.httpBody)
    }
}
