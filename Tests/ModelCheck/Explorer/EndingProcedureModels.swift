import Foundation
import SessionKitCore

@testable import SessionKit

/// Sign-out attempts (``SignOutProcedure``) against a model store and a model provider, retried
/// after every failure that may pass, with crashes at any point (a relaunch resumes what the
/// journal holds).
///
/// The stored session holds a refresh token and a pending rotated one; the provider accepts both
/// until it confirms their revocation. Its answers: confirmed, no revocation endpoint, 503, 400.
struct SignOutProcedureModel: ExplorableModel {
    init() {}

    var name: String { "sign-out procedure" }

    struct State {
        var store = CredentialRecord(
            session: StoredSession(
                refreshToken: Secret("r1"), pendingRefreshToken: Secret("r2"), accessToken: Secret("a1"), issuer: "https://issuer.example",
                subject: "alice", audience: ["client"]))
        /// Refresh tokens the provider accepts.
        var valid: Set<String> = ["r1", "r2"]
        /// The person asked to sign out, and no attempt confirmed it yet.
        var intent = true
        var procedure: SignOutProcedure?
        var step: SignOutProcedure.Step?
        var answers: [Int] = []
        /// The machine was told that this attempt is not journaled.
        var toldNotJournaled = false
        /// The provider said it cannot be told, or refused for good, in this attempt.
        var cannotTell = false
        var attempts = 0
    }

    enum Input {
        case start, crash
        case journal(JournalKind)
        case reported
        case revoked(RevokeAnswer)
        case wiped(ok: Bool)
    }
    enum JournalKind { case journaled, notJournaled, unreadable }
    enum RevokeAnswer { case confirmed, noEndpoint, unavailable, refused }

    func initialState() -> State { State() }

    func inputs(in state: State) -> [Input] {
        guard let step = state.step else {
            // A new attempt: the first, a retry after a failure that may pass, or a relaunch that
            // finds the journal.
            return state.intent && state.attempts < 3 ? [.start] : []
        }
        switch step {
        case .journal: return [.crash, .journal(.journaled), .journal(.notJournaled), .journal(.unreadable)]
        case .reportNotJournaled: return [.crash, .reported]
        case .revoke: return [.crash, .revoked(.confirmed), .revoked(.noEndpoint), .revoked(.unavailable), .revoked(.refused)]
        case .wipe: return [.crash, .wiped(ok: true), .wiped(ok: false)]
        case .finish: return []
        }
    }

    func step(_ state: inout State, _ input: Input) -> [Violation] {
        switch input {
        case .start:
            var procedure = SignOutProcedure()
            state.step = procedure.start()
            state.procedure = procedure
            state.answers = []
            state.toldNotJournaled = false
            state.cannotTell = false
            state.attempts += 1
            return check(&state)
        case .crash:
            state.procedure = nil
            state.step = nil
            // A relaunch resumes the sign-out only if the journal holds it.
            state.intent = state.store.pendingOperation == .signOut
            return []
        default:
            break
        }
        guard var procedure = state.procedure, let step = state.step else { return [] }
        let next: SignOutProcedure.Step
        switch (input, step) {
        case (.journal(let kind), .journal):
            state.answers.append(Self.code(kind))
            switch kind {
            case .journaled:
                state.store.pendingOperation = .signOut
                next = procedure.journaled(.journaled(state.store.session))
            case .notJournaled:
                next = procedure.journaled(.notJournaled(state.store.session, .noSpace))
            case .unreadable:
                next = procedure.journaled(.unreadable(.ioFailure("io")))
            }
        case (.reported, .reportNotJournaled):
            state.answers.append(5)
            state.toldNotJournaled = true
            next = procedure.reportedNotJournaled()
        case (.revoked(let answer), .revoke(let revocation)):
            state.answers.append(10 + Self.code(answer))
            switch answer {
            case .confirmed:
                state.valid.remove(revocation.token.value)
                next = procedure.revoked(.success(true))
            case .noEndpoint:
                state.cannotTell = true
                next = procedure.revoked(.success(false))
            case .unavailable:
                next = procedure.revoked(.failure(.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: "")))
            case .refused:
                state.cannotTell = true
                next = procedure.revoked(.failure(.http(status: 400, error: "unsupported_token_type", retryAfterSeconds: nil, excerpt: "")))
            }
        case (.wiped(let ok), .wipe):
            state.answers.append(ok ? 20 : 21)
            if ok { procedure.wipe(&state.store) }
            next = procedure.wiped(ok ? .success(()) : .failure(.ioFailure("io")))
        default:
            return []
        }
        state.procedure = procedure
        state.step = next
        return check(&state)
    }

    private func check(_ state: inout State) -> [Violation] {
        var violations: [Violation] = []
        switch state.step {
        case .revoke?:
            if state.store.pendingOperation != .signOut && !state.toldNotJournaled {
                violations.append(
                    .init("serverFirst", "a revocation is sent while the journal does not hold the sign-out and nobody was told it cannot"))
            }
        case .wipe?:
            let alive = state.valid.filter { token in
                [state.store.session?.refreshToken, state.store.session?.pendingRefreshToken].contains { $0?.value == token }
            }
            if !alive.isEmpty && !state.cannotTell {
                violations.append(
                    .init(
                        "serverFirst",
                        "the local wipe starts while the provider still accepts \(alive.sorted().joined(separator: ",")) and never said it cannot be told"
                    ))
            }
        case .finish(let outcome)?:
            switch outcome {
            case .transient:
                if state.store.session == nil {
                    violations.append(.init("transientNeverEndsSession", "a failure that may pass left the stored session wiped"))
                }
            case .inconsistent(let what):
                violations.append(.init("noInputCrashes", "the procedure found itself inconsistent: \(what)"))
            case .confirmed, .cannotTell, .refused:
                if state.store.pendingOperation == .signOut {
                    violations.append(.init("serverFirst", "the sign-out ended with its journal entry still in the store"))
                }
                state.intent = false
            case .storage:
                break
            }
            state.procedure = nil
            state.step = nil
        case .journal?, .reportNotJournaled?, nil:
            break
        }
        return violations
    }

    func canonicalize(_ state: State, into form: inout CanonicalForm) {
        form.write(state.store.session == nil)
        form.write(state.store.pendingOperation == .signOut)
        for token in state.valid.sorted() { form.write(Int(token.dropFirst()) ?? 0) }
        form.tag(1)
        form.write(state.intent)
        form.write(state.attempts)
        form.write(state.step != nil)
        for answer in state.answers { form.write(answer) }
    }

    func script(_ path: [Input]) -> String {
        path.map { input -> String in
            switch input {
            case .start: "start()"
            case .crash: "the process dies"
            case .journal(.journaled): "journaled(.journaled(stored))"
            case .journal(.notJournaled): "journaled(.notJournaled(stored, .noSpace))"
            case .journal(.unreadable): "journaled(.unreadable(.ioFailure))"
            case .reported: "reportedNotJournaled()"
            case .revoked(.confirmed): "revoked(.success(true))"
            case .revoked(.noEndpoint): "revoked(.success(false))"
            case .revoked(.unavailable): "revoked(.failure(503))"
            case .revoked(.refused): "revoked(.failure(400))"
            case .wiped(let ok): ok ? "wipe(&record); wiped(.success)" : "wiped(.failure(.ioFailure))"
            }
        }.joined(separator: "; ")
    }

    static func code(_ kind: JournalKind) -> Int {
        switch kind {
        case .journaled: 1
        case .notJournaled: 2
        case .unreadable: 3
        }
    }

    static func code(_ answer: RevokeAnswer) -> Int {
        switch answer {
        case .confirmed: 0
        case .noEndpoint: 1
        case .unavailable: 2
        case .refused: 3
        }
    }
}

/// Account-deletion attempts (``DisconnectProcedure``) against a model store and provider: the
/// app's connection at the provider, a grant that a completed disconnect kills, device-key answers
/// (401 once the grant is gone), and crashes at any point (a relaunch resumes what the journal holds).
struct DisconnectProcedureModel: ExplorableModel {
    typealias Procedure = DisconnectProcedure<ProcedureModelTokens>

    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    init() {}

    var name: String { "disconnect procedure" }

    struct State {
        var store = CredentialRecord(session: DisconnectProcedureModel.session)
        /// The app is still connected at the provider (the refresh token's grant lives).
        var connected = true
        var intent = true
        var procedure: Procedure?
        var step: Procedure.Step?
        var answers: [Int] = []
        var toldNotJournaled = false
        var attempts = 0
    }

    enum Input {
        case start, crash
        case journal(SignOutProcedureModel.JournalKind)
        case reported
        case refreshed(ok: Bool)
        case deviceKey(DeviceKeyAnswer)
        case disconnected(DisconnectAnswer)
        case wiped(ok: Bool)
        case reset, cleared
    }
    enum DeviceKeyAnswer { case key, unauthorized, unavailable }
    enum DisconnectAnswer { case done, notFound, unavailable, forbidden }

    func initialState() -> State { State() }

    func inputs(in state: State) -> [Input] {
        guard let step = state.step else { return state.intent && state.attempts < 3 ? [.start] : [] }
        switch step {
        case .journal: return [.crash, .journal(.journaled), .journal(.notJournaled), .journal(.unreadable)]
        case .reportNotJournaled: return [.crash, .reported]
        case .refresh: return [.crash, .refreshed(ok: true), .refreshed(ok: false)]
        case .requestDeviceKey:
            return [.crash, .deviceKey(state.connected ? .key : .unauthorized), .deviceKey(.unauthorized), .deviceKey(.unavailable)]
        case .disconnect:
            return [.crash, .disconnected(state.connected ? .done : .notFound), .disconnected(.unavailable), .disconnected(.forbidden)]
        case .wipe: return [.crash, .wiped(ok: true), .wiped(ok: false)]
        case .resetDeviceCredential: return [.crash, .reset]
        case .clearJournal: return [.crash, .cleared]
        case .finish: return []
        }
    }

    func step(_ state: inout State, _ input: Input) -> [Violation] {
        switch input {
        case .start:
            var procedure = Procedure(hasDisconnectEndpoint: true, hasDeviceKeySource: true, timing: RefreshTiming(leadTime: .seconds(60)))
            state.step = procedure.start()
            state.procedure = procedure
            state.answers = []
            state.toldNotJournaled = false
            state.attempts += 1
            return check(&state)
        case .crash:
            state.procedure = nil
            state.step = nil
            state.intent = state.store.pendingOperation == .deleteAccount
            return []
        default:
            break
        }
        guard var procedure = state.procedure, let step = state.step else { return [] }
        let next: Procedure.Step
        switch (input, step) {
        case (.journal(let kind), .journal):
            state.answers.append(SignOutProcedureModel.code(kind))
            switch kind {
            case .journaled:
                state.store.pendingOperation = .deleteAccount
                next = procedure.journaled(.journaled(state.store.session), now: Self.now)
            case .notJournaled:
                next = procedure.journaled(.notJournaled(state.store.session, .noSpace), now: Self.now)
            case .unreadable:
                next = procedure.journaled(.unreadable(.ioFailure("io")), now: Self.now)
            }
        case (.reported, .reportNotJournaled):
            state.answers.append(5)
            state.toldNotJournaled = true
            next = procedure.reportedNotJournaled(now: Self.now)
        case (.refreshed(let ok), .refresh):
            state.answers.append(ok ? 6 : 7)
            if !state.connected {
                // The grant died with the connection: the provider refuses the refresh token.
                next = procedure.refreshed(
                    .refreshTokenRejected(.http(status: 400, error: "invalid_grant", retryAfterSeconds: nil, excerpt: "")))
            } else if ok {
                var session = Self.session
                session.accessTokenExpiresAt = Self.now.addingTimeInterval(3600)
                next = procedure.refreshed(.refreshed(ProcedureModelTokens(name: "refreshed", session: session)))
            } else {
                next = procedure.refreshed(.providerFailed(Self.unavailable))
            }
        case (.deviceKey(let answer), .requestDeviceKey):
            state.answers.append(10 + Self.code(answer))
            switch answer {
            case .key: next = procedure.deviceKeyAnswered(.success(Secret("device-key")))
            case .unauthorized:
                next = procedure.deviceKeyAnswered(.failure(.http(status: 401, error: nil, retryAfterSeconds: nil, excerpt: "")))
            case .unavailable: next = procedure.deviceKeyAnswered(.failure(Self.unavailable))
            }
        case (.disconnected(let answer), .disconnect):
            state.answers.append(20 + Self.code(answer))
            switch answer {
            case .done, .notFound:
                state.connected = false
                next = procedure.disconnectAnswered(.success(()))
            case .unavailable: next = procedure.disconnectAnswered(.failure(Self.unavailable))
            case .forbidden:
                next = procedure.disconnectAnswered(.failure(.http(status: 403, error: nil, retryAfterSeconds: nil, excerpt: "")))
            }
        case (.wiped(let ok), .wipe):
            state.answers.append(ok ? 30 : 31)
            if ok { state.store.wipeAfterDeletion() }
            next = procedure.wiped(ok ? .success(()) : .failure(.ioFailure("io")))
        case (.reset, .resetDeviceCredential):
            state.answers.append(32)
            next = procedure.deviceCredentialReset()
        case (.cleared, .clearJournal):
            state.answers.append(33)
            state.store.pendingOperation = nil
            next = procedure.journalCleared(.success(()))
        default:
            return []
        }
        state.procedure = procedure
        state.step = next
        return check(&state)
    }

    private func check(_ state: inout State) -> [Violation] {
        var violations: [Violation] = []
        switch state.step {
        case .disconnect?, .requestDeviceKey?:
            if state.store.pendingOperation != .deleteAccount && !state.toldNotJournaled {
                violations.append(
                    .init("serverFirst", "the provider is asked while the journal does not hold the deletion and nobody was told it cannot")
                )
            }
        case .wipe?:
            if state.connected {
                violations.append(.init("serverFirst", "the local wipe starts while the app is still connected at the provider"))
            }
        case .finish(let outcome)?:
            switch outcome {
            case .transient, .refused:
                if state.store.session == nil {
                    violations.append(.init("transientNeverEndsSession", "the deletion was not confirmed, yet the stored session is gone"))
                }
                if case .transient = outcome, state.store.pendingOperation != .deleteAccount, !state.toldNotJournaled {
                    violations.append(.init("serverFirst", "a deletion that will be retried lost its journal entry"))
                }
                if case .refused = outcome { state.intent = false }
            case .confirmed:
                if state.connected {
                    violations.append(.init("serverFirst", "the deletion ended as confirmed while the app is still connected"))
                }
                state.intent = false
            case .inconsistent(let what):
                violations.append(.init("noInputCrashes", "the procedure found itself inconsistent: \(what)"))
            case .cannotTell:
                state.intent = false
            case .storage:
                break
            }
            state.procedure = nil
            state.step = nil
        default:
            break
        }
        return violations
    }

    func canonicalize(_ state: State, into form: inout CanonicalForm) {
        form.write(state.store.session == nil)
        form.write(state.store.pendingOperation == .deleteAccount)
        form.write(state.connected)
        form.write(state.intent)
        form.write(state.attempts)
        form.write(state.step != nil)
        for answer in state.answers { form.write(answer) }
    }

    func script(_ path: [Input]) -> String {
        path.map { input -> String in
            switch input {
            case .start: "start()"
            case .crash: "the process dies"
            case .journal(let kind): "journaled(.\(kind))"
            case .reported: "reportedNotJournaled(now:)"
            case .refreshed(let ok): ok ? "refreshed(.refreshed)" : "refreshed(.providerFailed(503))"
            case .deviceKey(let answer): "deviceKeyAnswered(\(answer))"
            case .disconnected(let answer): "disconnectAnswered(\(answer))"
            case .wiped(let ok): ok ? "wiped(.success)" : "wiped(.failure(.ioFailure))"
            case .reset: "deviceCredentialReset()"
            case .cleared: "journalCleared(.success)"
            }
        }.joined(separator: "; ")
    }

    static let unavailable = ProviderError.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: "")
    static let session = StoredSession(
        refreshToken: Secret("r1"), accessToken: Secret("a1"), accessTokenExpiresAt: now.addingTimeInterval(30),
        issuer: "https://issuer.example",
        subject: "alice", audience: ["client"])

    static func code(_ answer: DeviceKeyAnswer) -> Int {
        switch answer {
        case .key: 0
        case .unauthorized: 1
        case .unavailable: 2
        }
    }

    static func code(_ answer: DisconnectAnswer) -> Int {
        switch answer {
        case .done: 0
        case .notFound: 1
        case .unavailable: 2
        case .forbidden: 3
        }
    }
}
