import Foundation
import Testing

@testable import SessionKit

/// "One account per store" for a guest bootstrap's write: its key replaces a guest session (its
/// own, or one another process stored) or an empty slot, never a signed-in session.
@Suite struct OneAccountPerStoreTests {
    private typealias F = ProcedureFixtures

    private static func guest(_ name: String) -> StoredSession {
        var session = F.session(name, subject: "guest-1")
        session.refreshToken = nil
        session.isGuest = true
        return session
    }

    @Test func aGuestKeyGoesIntoAnEmptyRecordAndKeepsTheRest() {
        let record = CredentialRecord(pendingRevocations: [Secret("old-refresh-token")])
        let written = OneAccountPerStore.guestRecord(record, storing: Self.guest("AT-1"))
        #expect(written?.session == Self.guest("AT-1"))
        #expect(written?.pendingRevocations == record.pendingRevocations)
    }

    @Test func aGuestKeyReplacesAGuestSession() {
        let written = OneAccountPerStore.guestRecord(F.record(Self.guest("AT-1")), storing: Self.guest("AT-2"))
        #expect(written?.session == Self.guest("AT-2"))
    }

    @Test func aGuestKeyNeverReplacesASignedInSession() {
        #expect(OneAccountPerStore.guestRecord(F.record(F.session("RT-1")), storing: Self.guest("AT-2")) == nil)
    }
}
