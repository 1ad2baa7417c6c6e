import Foundation
import SessionKit
import SessionKitJOSE

extension SimulatedProviderState {
    /// The resource server's own state: its nonce and the refusals scripted for it.
    struct ResourceState {
        /// The nonce every proof must carry, once one was demanded.
        var nonce: String?
        /// How many of the next requests are refused with `invalid_token` whatever they present.
        var scriptedTokenRejections = 0
        /// Access tokens the resource server no longer accepts, though they have not expired.
        var distrusted: Set<String> = []
        /// Requests received.
        var requestCount = 0
        /// Requests answered 200.
        var acceptedCount = 0
    }

    /// Whether `url` is the resource server's.
    func isResourceRequest(_ url: URL) -> Bool {
        guard let resource = configuration.resourceServer else { return false }
        return Self.sameOrigin(url, resource.url)
    }

    /// One request to the resource server, checked as ``SimulatedResourceServer`` describes.
    mutating func resourceAnswer(_ request: HTTPRequest, now: Date) -> HTTPResponse {
        resource.requestCount += 1
        guard let server = configuration.resourceServer else { return Self.error(404, "not_found").response }
        guard let authorization = request.header("Authorization"), let space = authorization.firstIndex(of: " ") else {
            return Self.resourceChallenge(scheme: "Bearer", error: nil)
        }
        let scheme = String(authorization[..<space])
        let token = String(authorization[authorization.index(after: space)...])
        if resource.scriptedTokenRejections > 0 {
            resource.scriptedTokenRejections -= 1
            return Self.resourceChallenge(scheme: scheme, error: "invalid_token")
        }
        guard !resource.distrusted.contains(token), let record = accessTokens[token], now < record.expiresAt,
            let grant = grants[record.grantID], !grant.isRevoked
        else {
            return Self.resourceChallenge(scheme: scheme, error: "invalid_token")
        }
        if let jkt = grant.dpopJKT {
            // A bound token presented as Bearer is refused (RFC 9449 §7.2).
            guard ASCII.caseInsensitiveEquals(scheme, "DPoP"), let proof = request.header("DPoP") else {
                return Self.resourceChallenge(scheme: "DPoP", error: "invalid_token")
            }
            do throws(SimulatedDPoPVerifier.Failure) {
                let key = try SimulatedDPoPVerifier.verify(
                    proof, method: request.method, url: request.url, now: now, window: server.proofWindow, nonce: resource.nonce,
                    accessToken: token, seen: &dpopProofIDs, keys: &dpopProofKeys)
                guard key == jkt else { return Self.resourceChallenge(scheme: "DPoP", error: "invalid_token") }
            } catch {
                switch error {
                case .nonceRequired:
                    var answer = Self.resourceChallenge(scheme: "DPoP", error: "use_dpop_nonce")
                    answer.headers["dpop-nonce"] = resource.nonce
                    return answer
                case .invalidProof:
                    return Self.resourceChallenge(scheme: "DPoP", error: "invalid_dpop_proof")
                }
            }
        } else if !ASCII.caseInsensitiveEquals(scheme, "Bearer") {
            return Self.resourceChallenge(scheme: "Bearer", error: "invalid_token")
        }
        resource.acceptedCount += 1
        var answer = Self.json(200, .object([("sub", .string(grant.subject))]))
        if let nonce = resource.nonce { answer.headers["dpop-nonce"] = nonce }
        return answer
    }

    /// A `401` with one challenge of `scheme`, naming `error` when there is one (RFC 6750 §3).
    static func resourceChallenge(scheme: String, error: String?) -> HTTPResponse {
        var parameters: [(name: String, value: String)] = [("realm", "sim")]
        if let error { parameters.append(("error", error)) }
        if ASCII.caseInsensitiveEquals(scheme, "DPoP") { parameters.append(("algs", "ES256")) }
        let field = AuthenticationChallenge.serialize([
            AuthenticationChallenge(scheme: ASCII.caseInsensitiveEquals(scheme, "DPoP") ? "DPoP" : "Bearer", parameters: parameters)
        ])
        return HTTPResponse(status: 401, headers: ["WWW-Authenticate": field])
    }
}
