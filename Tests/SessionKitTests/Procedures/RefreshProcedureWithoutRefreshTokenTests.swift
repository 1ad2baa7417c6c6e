import Foundation
import Testing

@testable import SessionKit

/// A stored session the provider issued no refresh token for: its access token is adopted while it
/// lasts (up to expiry, not the lead time), and after that the session has ended.
@Suite("Refresh procedure without a refresh token")
struct RefreshProcedureWithoutRefreshTokenTests {
    typealias F = ProcedureFixtures
    typealias Procedure = RefreshProcedure<PlannedTokens>

    static func accessOnly(expiresIn: Double) -> StoredSession {
        var session = F.session("unused", expiresIn: expiresIn)
        session.refreshToken = nil
        return session
    }

    private func loaded(_ session: StoredSession) -> (Procedure, String) {
        var p = Procedure(previous: nil, forJournaledOperation: false, timing: RefreshTiming(leadTime: .seconds(Int(F.lead))))
        _ = p.start()
        let step = line(p.loaded(.success(F.record(session)), now: F.now))
        return (p, step)
    }

    @Test func theStoredAccessTokenIsAdoptedWhileItLastsEvenInsideTheLeadTime() {
        let session = Self.accessOnly(expiresIn: 30)
        var (p, step) = loaded(session)
        #expect(step == "adopt(no refresh token)")
        #expect(line(p.adoptionChecked(PlannedTokens(name: "S", session: session), now: F.now)) == "finish(refreshed S)")
    }

    @Test func anExpiredAccessTokenEndsTheSession() {
        let session = Self.accessOnly(expiresIn: 30)
        var (p, _) = loaded(session)
        #expect(
            line(p.adoptionChecked(PlannedTokens(name: "S", session: session), now: F.now.addingTimeInterval(31)))
                == "finish(refreshTokenMissing)")
    }

    @Test func anIncompleteRecordEndsTheSession() {
        var (p, _) = loaded(Self.accessOnly(expiresIn: 3600))
        #expect(line(p.adoptionChecked(nil, now: F.now)) == "finish(refreshTokenMissing)")
    }

    @Test func theOutcomeReachesTheMachineAsAnExpiredSession() {
        var random = SystemRandomNumberGenerator()
        let failure = RefreshFailure(RefreshOutcome<PlannedTokens>.refreshTokenMissing, attempt: 1, policy: .refresh, random: &random)
        #expect(failure == .permanent(.sessionExpired))
    }
}
