import Foundation
import SessionKitJOSE
import Testing

@testable import SessionKit

/// One sign-out attempt, step by step: what is revoked, with which hint, and what is wiped.
@Suite("Sign-out procedure")
struct SignOutProcedureTests {
    typealias F = ProcedureFixtures
    typealias Step = SignOutProcedure.Step
    typealias Revocation = SignOutProcedure.Revocation

    private func revocation(_ token: String, _ hint: String = "refresh_token") -> Step {
        .revoke(Revocation(token: Secret(token), hint: hint))
    }

    @Test("a pending rotated token is revoked before the current one, then the session is wiped")
    func revokesPendingThenCurrent() {
        var p = SignOutProcedure()
        #expect(p.start() == .journal)
        let stored = F.session("RT-1", pending: "RT-2")
        #expect(p.journaled(.journaled(stored)) == revocation("RT-2"))
        #expect(p.revoked(.success(true)) == revocation("RT-1"))
        #expect(p.revoked(.success(true)) == .wipe)
        var record = F.record(stored, pending: .signOut)
        p.wipe(&record)
        #expect(record.session == nil)
        #expect(record.pendingOperation == nil)
        #expect(p.wiped(.success(())) == .finish(.confirmed(idTokenHint: nil)))
    }

    @Test("a session without a refresh token revokes its access token")
    func accessTokenOnly() {
        var p = SignOutProcedure()
        _ = p.start()
        var stored = F.session("RT-1")
        stored.refreshToken = nil
        #expect(p.journaled(.journaled(stored)) == revocation("AT-RT-1", "access_token"))
    }

    @Test("nothing stored: nothing to revoke, the journal is cleared")
    func nothingStored() {
        var p = SignOutProcedure()
        _ = p.start()
        #expect(p.journaled(.journaled(nil)) == .wipe)
        #expect(p.wiped(.success(())) == .finish(.confirmed(idTokenHint: nil)))
    }

    @Test("a failure that may pass stops before any wipe; the journal keeps the intent")
    func transientStops() {
        var p = SignOutProcedure()
        _ = p.start()
        _ = p.journaled(.journaled(F.session("RT-1")))
        #expect(p.revoked(.failure(F.unavailable)) == .finish(.transient(F.unavailable)))
    }

    @Test("a permanent refusal wipes anyway and says the provider refused; the rest is not tried")
    func permanentWipes() {
        var p = SignOutProcedure()
        _ = p.start()
        _ = p.journaled(.journaled(F.session("RT-1", pending: "RT-2")))
        #expect(p.revoked(.failure(F.unauthorized)) == .wipe)
        #expect(p.wiped(.success(())) == .finish(.refused(status: 401, idTokenHint: nil)))
    }

    @Test("a provider without a revocation endpoint: wiped, and it says the provider was not told")
    func noEndpoint() {
        var p = SignOutProcedure()
        _ = p.start()
        _ = p.journaled(.journaled(F.session("RT-1")))
        #expect(p.revoked(.success(false)) == .wipe)
        #expect(p.wiped(.success(())) == .finish(.cannotTell(.revocation, idTokenHint: nil)))
    }

    @Test("the wipe leaves a session stored by a new sign-in in the meantime")
    func wipeKeepsNewSession() {
        var p = SignOutProcedure()
        _ = p.start()
        _ = p.journaled(.journaled(F.session("RT-1")))
        _ = p.revoked(.success(true))
        var record = F.record(F.session("RT-9"), pending: .signOut)
        p.wipe(&record)
        #expect(record.session?.refreshToken == Secret("RT-9"))
        #expect(record.pendingOperation == nil)
    }

    @Test("store failures end the attempt with a storage outcome")
    func storageFailures() {
        var p = SignOutProcedure()
        _ = p.start()
        #expect(p.journaled(.unreadable(.corrupted("bad"))) == .finish(.storage(.corrupted("bad"))))
        var q = SignOutProcedure()
        _ = q.start()
        _ = q.journaled(.journaled(nil))
        #expect(q.wiped(.failure(.corrupted("bad"))) == .finish(.storage(.corrupted("bad"))))
    }

    @Test("a journal that cannot be written is reported, then the sign-out revokes what the store holds")
    func notJournaled() {
        var p = SignOutProcedure()
        _ = p.start()
        #expect(p.journaled(.notJournaled(F.session("RT-1"), .noSpace)) == .reportNotJournaled(.noSpace))
        #expect(p.reportedNotJournaled() == .revoke(.init(token: Secret("RT-1"), hint: "refresh_token")))
        #expect(p.revoked(.success(true)) == .wipe)
        #expect(p.wiped(.success(())) == .finish(.confirmed(idTokenHint: F.session("RT-1").idToken)))
    }
}

/// The store-side rules of the revocation queue.
@Suite("Credential record: revocation rules")
struct CredentialRecordRevocationTests {
    typealias F = ProcedureFixtures

    @Test("deferring a session queues its refresh tokens and clears the journal")
    func deferring() {
        var record = F.record(F.session("RT-1", pending: "RT-2"), pending: .signOut)
        let queued = record.deferSessionRevocation()
        #expect(queued)
        #expect(record.pendingRevocations == [Secret("RT-2"), Secret("RT-1")])
        #expect(record.session == nil)
        #expect(record.pendingOperation == nil)
    }

    @Test("late tokens clear only their own session, never one a journaled operation owns, and are queued once")
    func lateTokens() {
        var own = F.record(F.session("RT-1"))
        let first = own.discardLate(refreshToken: Secret("RT-1"), accessToken: Secret("AT-RT-1"))
        #expect(first)
        #expect(own.session == nil)
        let again = own.discardLate(refreshToken: Secret("RT-1"), accessToken: Secret("AT-RT-1"))
        #expect(!again)
        #expect(own.pendingRevocations == [Secret("RT-1")])

        var other = F.record(F.session("RT-9"))
        other.discardLate(refreshToken: Secret("RT-1"), accessToken: Secret("AT-RT-1"))
        #expect(other.session?.refreshToken == Secret("RT-9"))

        var journaled = F.record(F.session("RT-1"), pending: .signOut)
        journaled.discardLate(refreshToken: Secret("RT-1"), accessToken: Secret("AT-RT-1"))
        #expect(journaled.session != nil)

        var noRefresh = F.record(nil)
        let queuedWithout = noRefresh.discardLate(refreshToken: nil, accessToken: Secret("AT"))
        #expect(!queuedWithout)
        #expect(noRefresh.pendingRevocations.isEmpty)
    }

    @Test("a new sign-in queues the earlier session's refresh token")
    func storingSignIn() {
        var record = F.record(F.session("RT-1"))
        record.storeSignedIn(F.session("RT-2"))
        #expect(record.session?.refreshToken == Secret("RT-2"))
        #expect(record.pendingRevocations == [Secret("RT-1")])
    }
}

/// The one refresh timing rule.
@Suite("Refresh timing")
struct RefreshTimingTests {
    let timing = RefreshTiming(leadTime: .seconds(60))
    let expiry = Date(timeIntervalSince1970: 1_000)

    @Test("due from the lead time before expiry; without a refresh token, due at expiry")
    func due() {
        #expect(timing.dueAt(expiresAt: expiry) == Date(timeIntervalSince1970: 940))
        #expect(!timing.isDue(expiresAt: expiry, now: Date(timeIntervalSince1970: 939.9)))
        #expect(timing.isDue(expiresAt: expiry, now: Date(timeIntervalSince1970: 940)))
        #expect(!timing.isDue(expiresAt: expiry, canRefresh: false, now: Date(timeIntervalSince1970: 999)))
        #expect(timing.isDue(expiresAt: expiry, canRefresh: false, now: expiry))
        #expect(!timing.isExpired(expiresAt: expiry, now: Date(timeIntervalSince1970: 999.9)))
        #expect(timing.isExpired(expiresAt: expiry, now: expiry))
        #expect(timing.secondsLeft(until: expiry, now: Date(timeIntervalSince1970: 1_200)) == 0)
        #expect(timing.secondsLeft(until: expiry, now: Date(timeIntervalSince1970: 969.5)) == 30)
    }
}
