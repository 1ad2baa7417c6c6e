import Foundation
import SessionKitCore

/// How one sign-out attempt ended.
enum SignOutOutcome: Sendable, Equatable {
    /// Every token revoked (or there was none); the store is wiped. `idTokenHint`: the last
    /// verified id_token, for the provider's end-session page.
    case confirmed(idTokenHint: Secret?)
    /// Wiped, but the provider could not be told (no revocation endpoint).
    case cannotTell(UnsupportedOperation, idTokenHint: Secret?)
    /// Wiped, but the provider refused the revocation for good (signing out cannot be refused).
    case refused(status: Int, idTokenHint: Secret?)
    /// It may pass: nothing was wiped, the journal keeps the intent, retry after a backoff.
    case transient(ProviderError)
    /// The store failed while journaling or wiping.
    case storage(CredentialStoreError)
    /// The procedure was fed an answer it cannot be waiting for (a bug in SessionKit).
    case inconsistent(String)
}

/// One server-first sign-out attempt, as steps the owner performs: journal the intent, revoke
/// what the stored session holds (RFC 7009: its refresh tokens, or its access token when the
/// provider issued no refresh token), then wipe what was revoked.
///
/// The first revocation that does not confirm ends the revoking: a failure that may pass leaves
/// everything in place for the retry; a permanent refusal or a provider without a revocation
/// endpoint wipes anyway and says so. Failures are classified with
/// `ProviderError.disposition(in:)` for `ProviderOperation.revocation`.
struct SignOutProcedure {
    /// One token to revoke, with its RFC 7009 `token_type_hint`.
    struct Revocation: Sendable, Equatable {
        var token: Secret
        var hint: String
    }

    /// The next thing the owner must do.
    enum Step: Sendable, Equatable {
        /// Record the sign-out in the store's journal; answer with what it found.
        case journal
        /// The store was read but the sign-out could not be journaled: tell the machine, then
        /// call ``reportedNotJournaled()``.
        case reportNotJournaled(CredentialStoreError)
        /// Revoke this token at the provider.
        case revoke(Revocation)
        /// Apply ``wipe(_:)`` to the stored record, under the lease.
        case wipe
        /// The attempt ended.
        case finish(SignOutOutcome)
    }

    private enum Phase {
        case journaling
        case reportingNotJournaled
        case revoking(remaining: ArraySlice<Revocation>)
        case wiping
        case finished
    }

    private var phase = Phase.journaling
    private var revocations: [Revocation] = []
    private var idTokenHint: Secret?
    /// Why the provider was not told, once a revocation did not confirm.
    private var unconfirmed: SignOutOutcome?

    /// The first step.
    mutating func start() -> Step {
        phase = .journaling
        return .journal
    }

    /// The journal of ``Step/journal`` answered. A store that could not be read ends the attempt;
    /// one that was read but not written lets it go on, unjournaled, once that is reported.
    mutating func journaled(_ answer: JournalAnswer) -> Step {
        guard case .journaling = phase else { return inconsistency("journaled in the wrong phase") }
        let stored: StoredSession?
        switch answer {
        case .journaled(let value): stored = value
        case .notJournaled(let value, let error):
            idTokenHint = value?.idToken
            revocations = Self.revocations(for: value)
            phase = .reportingNotJournaled
            return .reportNotJournaled(error)
        case .unreadable(let error): return finish(.storage(error))
        }
        idTokenHint = stored?.idToken
        revocations = Self.revocations(for: stored)
        return next(after: revocations[...])
    }

    /// The machine was told that the sign-out is not journaled: revoke as usual.
    mutating func reportedNotJournaled() -> Step {
        guard case .reportingNotJournaled = phase else { return inconsistency("reported in the wrong phase") }
        return next(after: revocations[...])
    }

    /// The provider answered the revocation of ``Step/revoke(_:)``: `true` when it confirmed,
    /// `false` when it has no revocation endpoint.
    mutating func revoked(_ answer: Result<Bool, ProviderError>) -> Step {
        guard case .revoking(let remaining) = phase else { return inconsistency("a revocation answer arrived in the wrong phase") }
        switch answer {
        case .success(true):
            return next(after: remaining.dropFirst())
        case .success(false):
            unconfirmed = .cannotTell(.revocation, idTokenHint: idTokenHint)
        case .failure(let error):
            switch error.disposition(in: .revocation) {
            case .transient: return finish(.transient(error))
            case .permanent: unconfirmed = .refused(status: error.status ?? 0, idTokenHint: idTokenHint)
            }
        }
        phase = .wiping
        return .wipe
    }

    /// The wipe of ``Step/wipe`` ended.
    mutating func wiped(_ result: Result<Void, CredentialStoreError>) -> Step {
        if case .failure(let error) = result { return finish(.storage(error)) }
        return finish(unconfirmed ?? .confirmed(idTokenHint: idTokenHint))
    }

    /// What the wipe does to the stored record: only the session this sign-out revoked goes (a
    /// new sign-in may already have stored its own), and the journal entry is cleared.
    func wipe(_ record: inout CredentialRecord) {
        let refreshTokens = revocations.filter { $0.hint == "refresh_token" }.map(\.token)
        let accessToken = revocations.first { $0.hint == "access_token" }?.token
        if let session = record.session,
            session.refreshToken.map(refreshTokens.contains) ?? (accessToken != nil && session.accessToken == accessToken)
        {
            record.session = nil
        }
        if record.pendingOperation == .signOut { record.pendingOperation = nil }
    }

    /// What a stored session's sign-out revokes: its refresh tokens (a pending rotated one first),
    /// or, for a session the provider issued no refresh token for, its access token.
    static func revocations(for stored: StoredSession?) -> [Revocation] {
        let refreshTokens = [stored?.pendingRefreshToken, stored?.refreshToken].compactMap { $0 }
        if !refreshTokens.isEmpty { return refreshTokens.map { Revocation(token: $0, hint: "refresh_token") } }
        return stored?.accessToken.map { [Revocation(token: $0, hint: "access_token")] } ?? []
    }

    private mutating func next(after remaining: ArraySlice<Revocation>) -> Step {
        guard let first = remaining.first else {
            phase = .wiping
            return .wipe
        }
        phase = .revoking(remaining: remaining)
        return .revoke(first)
    }

    /// Our own bug: an answer in the wrong phase. A debug build stops here; a release build ends
    /// the attempt, and the session stops.
    private mutating func inconsistency(_ what: String) -> Step {
        assertionFailure("SignOutProcedure: \(what)")
        return finish(.inconsistent(what))
    }

    private mutating func finish(_ outcome: SignOutOutcome) -> Step {
        phase = .finished
        return .finish(outcome)
    }
}
