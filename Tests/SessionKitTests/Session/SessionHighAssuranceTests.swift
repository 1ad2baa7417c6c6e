import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// The session's high-assurance slot (`SessionConfiguration.highAssurance`): sign-out and account
/// deletion remove the item where they wipe the credentials, after the provider's word, and not
/// before.
@Suite("High-assurance item at sign-out and deletion", .timeLimit(.minutes(1)))
struct SessionHighAssuranceTests {
    struct Setup {
        let gate = ScriptedBiometricGate()
        let h: SimulatedSessionEnvironment

        init() throws {
            let gate = gate
            let vault = HighAssuranceVault(gate: gate, now: { Date() }, isInBackground: { false })
            h = try SimulatedSessionEnvironment { $0.highAssurance = vault }
        }

        func signInAndKeep() async throws {
            _ = try await h.signIn()
            try await gate.store(Secret("high-assurance"), metadata: [])
            #expect(gate.holdsPayload)
        }
    }

    @Test func signOutRemovesItOnlyOnceTheRevocationIsConfirmed() async throws {
        let setup = try Setup()
        let h = setup.h
        try await setup.signInAndKeep()
        h.provider.script(.serverError(status: 503), on: .revocation)
        let session = h.session
        let signOut = Task { try await session.signOut() }
        // The first revocation failed and waits to retry: nothing is wiped yet.
        await h.clock.waitForSleepers(count: 1)
        #expect(session.stage == .revoking)
        #expect(setup.gate.holdsPayload)
        #expect(setup.gate.removeCount == 0)
        h.clock.advanceToNextDeadline()
        try await signOut.value
        #expect(session.stage == .signedOut)
        #expect(h.store.record.session == nil)
        #expect(!setup.gate.holdsPayload)
        #expect(setup.gate.removeCount == 1)
    }

    @Test func accountDeletionRemovesIt() async throws {
        let setup = try Setup()
        try await setup.signInAndKeep()
        try await setup.h.session.deleteAccount()
        #expect(setup.h.session.stage == .signedOut)
        #expect(!setup.gate.holdsPayload)
    }

    @Test func aRefusedDeletionKeepsIt() async throws {
        let setup = try Setup()
        try await setup.signInAndKeep()
        setup.h.provider.script(.unauthorized, on: .disconnect)
        await #expect(throws: SessionError.self) { try await setup.h.session.deleteAccount() }
        #expect(setup.h.session.stage == .active)
        #expect(setup.gate.holdsPayload)
        #expect(setup.gate.removeCount == 0)
    }

    @Test func withoutAVaultSignOutStillCompletes() async throws {
        let h = try SimulatedSessionEnvironment()
        _ = try await h.signIn()
        try await h.session.signOut()
        #expect(h.session.stage == .signedOut)
    }
}
