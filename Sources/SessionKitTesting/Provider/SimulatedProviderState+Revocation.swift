import Foundation
import SessionKit

extension SimulatedProviderState {
    /// `POST /oauth/revoke` (RFC 7009): revokes the whole grant a refresh or access token belongs to.
    ///
    /// An unknown, expired or already revoked token is answered with 200 too (RFC 7009 §2.2), so a
    /// client cannot probe which tokens exist.
    ///
    /// With DPoP on, a request without a proof is judged as RFC 7009 says (the token and the
    /// client are what count), but a proof that comes with it is checked like one at the token
    /// endpoint, and for a bound token it must be by that token's key: a proof of another key is
    /// refused `invalid_dpop_proof`, and nothing is revoked.
    mutating func revocationAnswer(
        _ request: HTTPRequest, form decoded: Result<[String: String], SimulatedProviderForm.Failure>, now: Date
    ) -> Answer {
        guard Self.hasContentType(request, "application/x-www-form-urlencoded") else {
            return Self.error(400, "invalid_request", "the body must be application/x-www-form-urlencoded")
        }
        let form: [String: String]
        switch decoded {
        case .success(let fields): form = fields
        case .failure(let failure): return Self.formError(failure)
        }
        if let refusal = clientAuthenticationRefusal(request, form: form, now: now) { return refusal }
        guard let token = form["token"] else { return Self.error(400, "invalid_request", "token is missing") }
        if let hint = form["token_type_hint"], hint != "refresh_token", hint != "access_token" {
            return Self.error(400, "unsupported_token_type")
        }
        let grantID = refreshTokens[token]?.grantID ?? accessTokens[token]?.grantID
        if let dpop = configuration.dpop, let proof = request.header("DPoP") {
            let key: String
            do throws(SimulatedDPoPVerifier.Failure) {
                key = try SimulatedDPoPVerifier.verify(
                    proof, method: request.method, url: request.url, now: now, window: dpop.proofWindow, nonce: nil, accessToken: nil,
                    seen: &dpopProofIDs, keys: &dpopProofKeys)
            } catch {
                return Self.error(400, "invalid_dpop_proof", "the proof does not verify")
            }
            if let grantID, let bound = grants[grantID]?.dpopJKT, bound != key {
                return Self.error(400, "invalid_dpop_proof", "the token is bound to another key")
            }
        }
        if let grantID, grants[grantID]?.clientID == form["client_id"] {
            revokeGrant(grantID, reason: .revocation)
        }
        return Answer(HTTPResponse(status: 200, headers: ["Cache-Control": "no-store"]))
    }

    /// Revokes a grant and everything issued from it; revoking it again changes nothing.
    mutating func revokeGrant(_ grantID: Int, reason: SimulatedProviderRevokedChain.Reason) {
        guard var grant = grants[grantID], !grant.isRevoked else { return }
        grant.isRevoked = true
        grant.currentRefreshToken = nil
        grants[grantID] = grant
        revokedChains.append(SimulatedProviderRevokedChain(subject: grant.subject, clientID: grant.clientID, reason: reason))
    }

    /// Whether an access token would be accepted now.
    func isAccessTokenActive(_ token: String, now: Date) -> Bool {
        guard let record = accessTokens[token], let grant = grants[record.grantID] else { return false }
        return !grant.isRevoked && now < record.expiresAt
    }

    /// Whether a refresh token would be accepted now.
    func isRefreshTokenActive(_ token: String, now: Date) -> Bool {
        guard let record = refreshTokens[token], let grant = grants[record.grantID] else { return false }
        guard !grant.isRevoked, grant.currentRefreshToken == token else { return false }
        guard let lifetime = configuration.refreshTokenLifetime else { return true }
        return now < record.issuedAt.addingTimeInterval(lifetime.simulatedProviderSeconds)
    }
}
