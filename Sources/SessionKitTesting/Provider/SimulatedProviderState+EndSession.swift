import Foundation
import SessionKitJOSE

extension SimulatedProviderState {
    /// What the end-session endpoint does when a browser visits it (RP-Initiated Logout 1.0 §2,
    /// §3): checks the client, the hint and the redirect URI, ends the browser session, and
    /// returns where it redirects (with `state`), or nil when no redirect was asked for.
    mutating func endSession(_ url: URL, now: Date) throws(SimulatedProviderEndSessionError) -> URL? {
        guard Self.sameOrigin(url, configuration.issuer),
            Self.path(of: url) == Self.path(of: configuration.issuer).trimmingTrailingSlashes
                + SimulatedProviderEndpoint.endSessionPath
        else { throw .notEndSessionEndpoint }
        let query: [String: String]
        do {
            query = try SimulatedProviderForm.decodeQuery(of: url)
        } catch {
            throw .invalidRequest
        }
        if let clientID = query["client_id"], !isKnownClient(clientID) { throw .unknownClient }
        var subject: String?
        if let hint = query["id_token_hint"] {
            subject = try hintSubject(hint, now: now)
        }
        var redirect: URL?
        if let target = query["post_logout_redirect_uri"] {
            guard query["client_id"] != nil || subject != nil else { throw .unknownClient }
            // Matched like a sign-in's redirect URI: a registered loopback one on any port (RFC 8252
            // §7.3), as django-oauth-toolkit does for both, unless ports must match exactly.
            guard
                configuration.postLogoutRedirectURIs.contains(where: {
                    Self.redirectMatches(target, registered: $0, configuration: configuration)
                }), let requested = URL(string: target)
            else {
                throw .unregisteredRedirectURI
            }
            redirect = query["state"].map { SimulatedProviderForm.appending([("state", $0)], to: requested) } ?? requested
        }
        if let subject {
            browserSessions[subject] = nil
        } else {
            browserSessions = [:]
        }
        endSessionRecords.append(
            SimulatedProviderEndSessionRecord(
                subject: subject, hadClientID: query["client_id"] != nil, postLogoutRedirectURI: query["post_logout_redirect_uri"],
                hadState: query["state"] != nil, receivedAt: now))
        return redirect
    }

    /// The `sub` of an id_token this provider signed for the client; an expired one still counts
    /// as a hint (§2: the hint may have expired).
    private func hintSubject(_ hint: String, now: Date) throws(SimulatedProviderEndSessionError) -> String {
        let keys = JWKS(keys: publishedKeys(now: now).map(\.publicJWK))
        guard let jws = try? CompactJWS.verify(hint, keys: keys, algorithms: [configuration.idTokenSigningAlgorithm]),
            let claims = try? JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any],
            claims["iss"] as? String == configuration.issuerString, let subject = claims["sub"] as? String
        else { throw .invalidIDTokenHint }
        let audience = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String] ?? [])
        guard audience.contains(where: isKnownClient) else { throw .invalidIDTokenHint }
        return subject
    }
}
