import Foundation
import SessionKitJOSE

@testable import SessionKit

/// A verified token set for procedure scripts: a name and the stored session it stands for.
struct PlannedTokens: ProcedureTokens, Equatable {
    var name: String
    var session: StoredSession

    var accessTokenExpiresAt: Date { session.accessTokenExpiresAt ?? .distantPast }
    var subject: String { session.subject }
    var canRefresh: Bool { session.refreshToken != nil }
    func stored() -> StoredSession { session }
}

/// Records, sessions and answers for procedure scripts; secrets are readable names.
enum ProcedureFixtures {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let lead = 60.0

    /// A stored session whose refresh token is `refresh`, with an access token that expires `expiresIn` seconds from ``now``.
    static func session(
        _ refresh: String, pending: String? = nil, rotation: UInt64 = 0, expiresIn: Double = 3600, subject: String = "alice"
    ) -> StoredSession {
        StoredSession(
            refreshToken: Secret(refresh), pendingRefreshToken: pending.map(Secret.init), accessToken: Secret("AT-\(refresh)"),
            accessTokenExpiresAt: now.addingTimeInterval(expiresIn), issuer: "https://issuer.example", subject: subject,
            audience: ["client"], rotation: rotation)
    }

    static func record(_ session: StoredSession?, pending operation: PendingOperation? = nil) -> CredentialRecord {
        CredentialRecord(session: session, pendingOperation: operation)
    }

    static func tokens(_ name: String, refresh: String, rotation: UInt64 = 1, expiresIn: Double = 3600) -> PlannedTokens {
        PlannedTokens(name: name, session: session(refresh, rotation: rotation, expiresIn: expiresIn))
    }

    /// A token response; `rotated` is the refresh token it carries, if any.
    static func response(rotated: String?) -> TokenResponse {
        TokenResponse(accessToken: Secret("AT-new"), expiresIn: 3600, refreshToken: rotated.map(Secret.init))
    }

    static let invalidGrant = ProviderError.http(status: 400, error: "invalid_grant", retryAfterSeconds: nil, excerpt: "")
    static let emptyBadRequest = ProviderError.http(status: 400, error: nil, retryAfterSeconds: nil, excerpt: "")
    static let unavailable = ProviderError.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: "")
    static let unauthorized = ProviderError.http(status: 401, error: nil, retryAfterSeconds: nil, excerpt: "")
    static let forbidden = ProviderError.http(status: 403, error: nil, retryAfterSeconds: nil, excerpt: "")
    /// `use_dpop_nonce` with a new nonce, as the DPoP middleware reports it.
    static let useNonce = ProviderError.dpop(DPoPFailure(.useNonce))
}

/// One step of a refresh procedure as a short line.
func line(_ step: RefreshProcedure<PlannedTokens>.Step) -> String {
    switch step {
    case .load: "load"
    case .adopt(let session): "adopt(\(session.refreshToken?.value ?? "no refresh token"))"
    case .requestRefresh(let token): "request(\(token.value))"
    case .retryRefreshWithNonce(let token): "retryWithNonce(\(token.value))"
    case .verifyWithCachedKeys(_, let base): "verifyCached(base \(base.refreshToken?.value ?? "none"))"
    case .verifyWithFetchedKeys(_, let base): "verifyFetched(base \(base.refreshToken?.value ?? "none"))"
    case .save(let record): "save(\(describe(record)))"
    case .finish(let outcome): "finish(\(describe(outcome)))"
    }
}

func describe(_ record: CredentialRecord) -> String {
    var parts: [String] = []
    if let session = record.session {
        let pending = session.pendingRefreshToken.map { " pending \($0.value)" } ?? ""
        parts.append("session \(session.refreshToken?.value ?? "without refresh token")" + pending)
    } else {
        parts.append("no session")
    }
    if !record.pendingRevocations.isEmpty { parts.append("revoke \(record.pendingRevocations.map(\.value).joined(separator: ","))") }
    return parts.joined(separator: "; ")
}

func describe(_ outcome: RefreshOutcome<PlannedTokens>) -> String {
    switch outcome {
    case .refreshed(let tokens): "refreshed \(tokens.name)"
    case .notSignedIn: "notSignedIn"
    case .refreshTokenRejected(let error): "refreshTokenRejected \(error.summary)"
    case .idTokenRejected(let failure): "idTokenRejected \(failure.code)"
    case .providerFailed(let error): "providerFailed \(error.summary)"
    case .storageFailed(let error): "storageFailed \(error.code)"
    case .anotherAccount: "anotherAccount"
    case .dpopKeyUnavailable(let loss): "dpopKeyUnavailable \(loss.reason)"
    case .refreshTokenMissing: "refreshTokenMissing"
    case .inconsistent(let what): "inconsistent \(what)"
    }
}
