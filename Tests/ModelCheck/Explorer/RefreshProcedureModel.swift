import Foundation
import SessionKitCore

@testable import SessionKit

/// A verified token set as the procedure models see it: a name and the stored session it stands for.
struct ProcedureModelTokens: ProcedureTokens, Equatable {
    var name: String
    var session: StoredSession

    var accessTokenExpiresAt: Date { session.accessTokenExpiresAt ?? .distantPast }
    var subject: String { session.subject }
    var canRefresh: Bool { session.refreshToken != nil }
    func stored() -> StoredSession { session }
}

/// The refresh procedure under the store's lease, against a model store and a model provider
/// that rotates refresh tokens, with a second process that refreshes or signs another account in
/// between runs, and crashes (a relaunch restores from the store) at any point.
///
/// The provider accepts exactly the refresh tokens in `valid`; a refresh it answers rotates: the
/// presented token dies and a new one is issued. A DPoP provider may refuse any refresh request
/// with `use_dpop_nonce` and a new nonce (RFC 9449 §8), the first or its retry, and may spend the
/// token on the request it refuses (a provider that uses the grant before it checks the nonce).
/// The procedure's own state is private, so a run's canonical form is the list of answers it was
/// fed (the procedure is deterministic).
struct RefreshProcedureModel: ExplorableModel {
    typealias Procedure = RefreshProcedure<ProcedureModelTokens>

    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    static let timing = RefreshTiming(leadTime: .seconds(60))
    static let issuer = "https://issuer.example"

    init() {}

    var name: String { "refresh procedure" }

    struct State {
        var store = CredentialRecord(session: RefreshProcedureModel.session("r1", access: "a1", rotation: 0))
        /// Refresh tokens the provider accepts.
        var valid: Set<String> = ["r1"]
        var issued = 1
        /// The session the process holds in memory (the machine's verified tokens), if it runs.
        var held: StoredSession? = RefreshProcedureModel.session("r1", access: "a1", rotation: 0)
        var run: Run?
        var runs = 0
    }

    struct Run {
        var procedure: Procedure
        var step: Procedure.Step
        var previous: StoredSession?
        /// The answers fed so far, as codes: the run's canonical form.
        var answers: [Int] = []
        /// Tokens this run obtained from a verification or an adoption check.
        var vouched: [String] = []
        var providerRejected = false
        var idTokenRejected = false
        /// The token of the refresh request just refused for a nonce: the one request a nonce
        /// retry may resend. Cleared once the retry is asked for, so a second retry has none.
        var nonceRefused: String?
    }

    enum Input {
        /// The process refreshes the session it holds (or, after a relaunch, whatever is stored).
        case startRun
        /// Another process sharing the store refreshes (rotating the token) and writes its result.
        case otherProcessRefreshes
        /// Another process signs another account in, in the same store.
        case otherAccountStored
        /// The process dies; the next run restores from the store.
        case crash
        case loaded(ok: Bool)
        case adoptionChecked
        case answered(Answer)
        /// The DPoP key the token is bound to is not in the key store: nothing is sent.
        case keyMissing
        case verified(Verdict)
        case saved(ok: Bool)
    }

    enum Answer { case rotated, notRotated, unavailable, invalidGrant, useNonce, useNonceSpending }
    enum Verdict { case verified, undecided, rejected, keysUnavailable }

    func initialState() -> State { State() }

    func inputs(in state: State) -> [Input] {
        guard let run = state.run else {
            var inputs: [Input] = []
            if state.runs < 3 { inputs.append(.startRun) }
            if state.store.session?.subject == "alice", state.store.session?.refreshToken.map({ state.valid.contains($0.value) }) == true {
                inputs.append(.otherProcessRefreshes)
            }
            if state.store.session?.subject != "bob" { inputs.append(.otherAccountStored) }
            return inputs
        }
        var inputs: [Input] = [.crash]
        switch run.step {
        case .load: inputs += [.loaded(ok: true), .loaded(ok: false)]
        case .adopt: inputs.append(.adoptionChecked)
        case .requestRefresh(let token), .retryRefreshWithNonce(let token):
            inputs += state.valid.contains(token.value) ? [.answered(.rotated), .answered(.notRotated)] : [.answered(.invalidGrant)]
            inputs.append(.answered(.unavailable))
            inputs.append(.answered(.useNonce))
            if state.valid.contains(token.value) { inputs.append(.answered(.useNonceSpending)) }
            inputs.append(.keyMissing)
        case .verifyWithCachedKeys: inputs += [.verified(.verified), .verified(.undecided), .verified(.rejected)]
        case .verifyWithFetchedKeys: inputs += [.verified(.verified), .verified(.rejected), .verified(.keysUnavailable)]
        case .save: inputs += [.saved(ok: true), .saved(ok: false)]
        case .finish: break
        }
        return inputs
    }

    func step(_ state: inout State, _ input: Input) -> [Violation] {
        switch input {
        case .startRun:
            var procedure = Procedure(previous: state.held, forJournaledOperation: false, timing: Self.timing)
            let step = procedure.start()
            state.run = Run(procedure: procedure, step: step, previous: state.held)
            state.runs += 1
            return check(&state)
        case .otherProcessRefreshes:
            guard var session = state.store.session, let token = session.refreshToken else { return [] }
            state.issued += 1
            state.valid.remove(token.value)
            state.valid.insert("r\(state.issued)")
            session.refreshToken = Secret("r\(state.issued)")
            session.pendingRefreshToken = nil
            session.accessToken = Secret("a\(state.issued)")
            session.accessTokenExpiresAt = Self.now.addingTimeInterval(3600)
            session.rotation += 1
            state.store.session = session
            return []
        case .otherAccountStored:
            // Freshly signed in: a session another process just stored is not due.
            var session = Self.session("b1", access: "ab1", rotation: 0, subject: "bob")
            session.accessTokenExpiresAt = Self.now.addingTimeInterval(3600)
            state.store.session = session
            return []
        case .crash:
            // A token only the dead process knew (the provider answered, nothing was written yet:
            // the write is the first thing after the answer) is gone with it.
            state.valid.formIntersection(Self.kept(state.store))
            state.run = nil
            state.held = nil
            return []
        default:
            break
        }
        guard var run = state.run else { return [] }
        let next: Procedure.Step
        switch input {
        case .loaded(let ok):
            run.answers.append(ok ? 1 : 2)
            next = run.procedure.loaded(ok ? .success(state.store) : .failure(.ioFailure("io")), now: Self.now)
        case .adoptionChecked:
            guard case .adopt(let session) = run.step else { return [] }
            let tokens = ProcedureModelTokens(name: session.refreshToken?.value ?? "none", session: session)
            run.vouched.append(tokens.name)
            run.answers.append(3)
            next = run.procedure.adoptionChecked(tokens, now: Self.now)
        case .answered(let answer):
            let token: Secret
            switch run.step {
            case .requestRefresh(let value), .retryRefreshWithNonce(let value): token = value
            default: return []
            }
            run.answers.append(10 + Self.code(answer))
            switch answer {
            case .rotated:
                state.issued += 1
                state.valid.remove(token.value)
                state.valid.insert("r\(state.issued)")
                next = run.procedure.refreshAnswered(
                    .success(
                        TokenResponse(accessToken: Secret("a\(state.issued)"), expiresIn: 3600, refreshToken: Secret("r\(state.issued)"))))
            case .notRotated:
                state.issued += 1
                next = run.procedure.refreshAnswered(.success(TokenResponse(accessToken: Secret("a\(state.issued)"), expiresIn: 3600)))
            case .unavailable:
                next = run.procedure.refreshAnswered(.failure(Self.unavailable))
            case .invalidGrant:
                run.providerRejected = true
                next = run.procedure.refreshAnswered(.failure(Self.invalidGrant))
            case .useNonce, .useNonceSpending:
                if answer == .useNonceSpending { state.valid.remove(token.value) }
                if case .requestRefresh = run.step { run.nonceRefused = token.value }
                next = run.procedure.refreshAnswered(.failure(Self.useNonce))
            }
        case .keyMissing:
            switch run.step {
            case .requestRefresh, .retryRefreshWithNonce: break
            default: return []
            }
            run.answers.append(40)
            next = run.procedure.keyUnavailable(DPoPKeyLoss(reason: .missing))
        case .verified(let verdict):
            let (response, base): (TokenResponse, StoredSession)
            switch run.step {
            case .verifyWithCachedKeys(let r, let b), .verifyWithFetchedKeys(let r, let b): (response, base) = (r, b)
            default: return []
            }
            run.answers.append(20 + Self.code(verdict))
            switch verdict {
            case .verified:
                var session = base
                session.refreshToken = response.refreshToken ?? base.refreshToken
                session.accessToken = response.accessToken
                session.accessTokenExpiresAt = Self.now.addingTimeInterval(3600)
                session.rotation += 1
                let tokens = ProcedureModelTokens(name: session.refreshToken?.value ?? "none", session: session)
                run.vouched.append(tokens.name)
                next = run.procedure.verified(.verified(tokens))
            case .undecided:
                next = run.procedure.verified(.undecided)
            case .rejected:
                run.idTokenRejected = true
                next = run.procedure.verified(.rejected(.badSignature))
            case .keysUnavailable:
                next = run.procedure.verified(.keysUnavailable(Self.unavailable))
            }
        case .saved(let ok):
            guard case .save(let record) = run.step else { return [] }
            run.answers.append(ok ? 30 : 31)
            if ok { state.store = record }
            next = run.procedure.saved(ok ? .success(()) : .failure(.ioFailure("io")))
        default:
            return []
        }
        run.step = next
        state.run = run
        return check(&state)
    }

    /// The invariants, at the step the procedure asks for next.
    private func check(_ state: inout State) -> [Violation] {
        guard var run = state.run else { return [] }
        var violations: [Violation] = []
        let kept = Self.kept(state.store)
        func durable(_ when: String) {
            let lost = state.valid.subtracting(kept).filter { $0.hasPrefix("r") }
            if !lost.isEmpty, state.store.session?.subject != "bob" {
                violations.append(
                    .init(
                        "rotatedTokenDurable",
                        "\(when), while the refresh token the provider now accepts (\(lost.sorted().joined(separator: ","))) is not in the store"
                    ))
            }
        }
        if case .retryRefreshWithNonce(let token) = run.step {
            // RFC 9449 §8: one retry of the request the nonce refused, presenting its token.
            if run.nonceRefused != token.value {
                violations.append(
                    .init(
                        "oneNonceRetryPerRequest",
                        "a nonce retry presents \(token.value), but the request just refused for a nonce was "
                            + (run.nonceRefused.map { "one presenting \($0)" } ?? "none (already retried, or never sent)")))
            }
            run.nonceRefused = nil
            state.run = run
        } else if case .requestRefresh = run.step {
        } else {
            // Any other step ends the request the nonce refused: no retry of it may follow.
            run.nonceRefused = nil
            state.run = run
        }
        switch run.step {
        case .requestRefresh, .retryRefreshWithNonce: durable("a refresh request is sent")
        case .verifyWithFetchedKeys: durable("signing keys are fetched")
        case .finish(let outcome):
            state.run = nil
            switch outcome {
            case .refreshed(let tokens):
                durable("refreshed tokens are handed out")
                if !run.vouched.contains(tokens.name) {
                    violations.append(.init("verifiedBeforeUse", "tokens \(tokens.name) were handed out without a verification"))
                }
                if state.store.session != tokens.stored() {
                    violations.append(.init("rotatedTokenDurable", "tokens \(tokens.name) were handed out before the store held them"))
                }
                if let previous = run.previous, tokens.subject != previous.subject {
                    violations.append(.init("oneAccountPerStore", "\(tokens.subject)'s session was adopted for \(previous.subject)'s"))
                }
                state.held = tokens.stored()
            case .refreshTokenRejected:
                if !run.providerRejected {
                    violations.append(
                        .init(
                            "transientNeverEndsSession", "the session ended as rejected, but the provider never refused the refresh token"))
                }
                ended(&state)
            case .idTokenRejected:
                if !run.idTokenRejected {
                    violations.append(.init("transientNeverEndsSession", "the session ended on an id_token no verification rejected"))
                }
                ended(&state)
            case .providerFailed(let error):
                // A generator with state of its own: `SystemRandomNumberGenerator` has no storage,
                // and the thread sanitizer reads every thread's `inout` access to it as one
                // access to the same global. The classification never depends on the draw.
                var random = SeededRandomNumberGenerator(seed: 1)
                let failure = RefreshFailure(
                    .providerFailed(error) as RefreshOutcome<ProcedureModelTokens>, attempt: 1, policy: .refresh, random: &random)
                if case .transient? = failure {
                } else {
                    violations.append(
                        .init("transientNeverEndsSession", "a provider failure that may pass was classified as ending the session"))
                }
            case .inconsistent(let what):
                violations.append(.init("noInputCrashes", "the procedure found itself inconsistent: \(what)"))
            case .notSignedIn, .storageFailed, .refreshTokenMissing, .anotherAccount, .dpopKeyUnavailable:
                ended(&state)
            }
        case .load, .adopt, .verifyWithCachedKeys, .save:
            break
        }
        return violations
    }

    /// The run ended the session (the app sees why): a token the provider issued that the store
    /// does not keep ends with it, never used. Durability is owed to a session that goes on.
    private func ended(_ state: inout State) {
        state.valid.formIntersection(Self.kept(state.store))
        state.held = nil
    }

    func canonicalize(_ state: State, into form: inout CanonicalForm) {
        func secret(_ value: Secret?) { form.write(value.map { Self.number($0.value) } ?? -1) }
        func session(_ value: StoredSession?) {
            guard let value else { return form.write(-2) }
            form.write(value.subject == "bob")
            secret(value.refreshToken)
            secret(value.pendingRefreshToken)
            form.write(Int(value.rotation))
        }
        session(state.store.session)
        for token in state.store.pendingRevocations { secret(token) }
        form.tag(1)
        for token in state.valid.sorted() { form.write(Self.number(token)) }
        form.tag(2)
        session(state.held)
        form.write(state.runs)
        if let run = state.run {
            form.tag(3)
            session(run.previous)
            for answer in run.answers { form.write(answer) }
        }
    }

    func script(_ path: [Input]) -> String {
        let lines = path.map { input -> String in
            switch input {
            case .startRun: "start"
            case .otherProcessRefreshes: "another process refreshes and stores its result"
            case .otherAccountStored: "another process stores bob's session"
            case .crash: "the process dies"
            case .keyMissing: "keyUnavailable(.missing)"
            case .loaded(let ok): ok ? "loaded(.success(record))" : "loaded(.failure(.ioFailure))"
            case .adoptionChecked: "adoptionChecked(stored tokens)"
            case .answered(.rotated): "refreshAnswered(.success(rotated))"
            case .answered(.notRotated): "refreshAnswered(.success(not rotated))"
            case .answered(.unavailable): "refreshAnswered(.failure(503))"
            case .answered(.invalidGrant): "refreshAnswered(.failure(400 invalid_grant))"
            case .answered(.useNonce): "refreshAnswered(.failure(use_dpop_nonce))"
            case .answered(.useNonceSpending): "refreshAnswered(.failure(use_dpop_nonce, the token spent))"
            case .verified(.verified): "verified(.verified)"
            case .verified(.undecided): "verified(.undecided)"
            case .verified(.rejected): "verified(.rejected(.badSignature))"
            case .verified(.keysUnavailable): "verified(.keysUnavailable(503))"
            case .saved(let ok): ok ? "saved(.success)" : "saved(.failure(.ioFailure))"
            }
        }
        return lines.joined(separator: "; ")
    }

    /// The refresh tokens the store holds, queued for revocation included.
    static func kept(_ record: CredentialRecord) -> Set<String> {
        Set(
            [record.session?.refreshToken, record.session?.pendingRefreshToken].compactMap { $0?.value }
                + record.pendingRevocations.map(\.value))
    }

    static func number(_ name: String) -> Int {
        (name.hasPrefix("b") ? 1000 : 0) + (Int(name.drop { !$0.isNumber }) ?? 0)
    }

    static func code(_ answer: Answer) -> Int {
        switch answer {
        case .rotated: 0
        case .notRotated: 1
        case .unavailable: 2
        case .invalidGrant: 3
        case .useNonce: 4
        case .useNonceSpending: 5
        }
    }

    static func code(_ verdict: Verdict) -> Int {
        switch verdict {
        case .verified: 0
        case .undecided: 1
        case .rejected: 2
        case .keysUnavailable: 3
        }
    }

    static let unavailable = ProviderError.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: "")
    static let invalidGrant = ProviderError.http(status: 400, error: "invalid_grant", retryAfterSeconds: nil, excerpt: "")
    static let useNonce = ProviderError.dpop(DPoPFailure(.useNonce))

    static func session(_ refresh: String, access: String, rotation: UInt64, subject: String = "alice") -> StoredSession {
        StoredSession(
            refreshToken: Secret(refresh), accessToken: Secret(access), accessTokenExpiresAt: now.addingTimeInterval(30), issuer: issuer,
            subject: subject, audience: ["client"], rotation: rotation)
    }
}
