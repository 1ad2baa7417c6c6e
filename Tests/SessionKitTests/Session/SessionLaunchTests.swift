import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// A launch never waits for the network, in any stage: every stored state, online, offline and
/// with a provider that never answers, returns at once with the stage it restored into.
@Suite("Session launch never waits", .timeLimit(.minutes(1)))
struct SessionLaunchTests {
    enum Stored: String, CaseIterable, Sendable {
        case nothing, active, due, expired, signOutJournaled, deletionJournaled
    }

    enum Network: String, CaseIterable, Sendable {
        case online, offline, hanging
    }

    /// The stage `restore()` must answer for `stored`.
    static func restoredStage(_ stored: Stored) -> SessionStage {
        switch stored {
        case .nothing: .signedOut
        case .active: .active
        case .due, .expired: .refreshing
        case .signOutJournaled: .revoking
        case .deletionJournaled: .disconnecting
        }
    }

    @Test("restore() returns at once with the stage it restored into", arguments: Stored.allCases, Network.allCases)
    func launch(stored: Stored, network: Network) async throws {
        let h = try SimulatedSessionEnvironment()
        if stored != .nothing {
            _ = try await h.signIn()
            var record = h.store.record
            switch stored {
            case .signOutJournaled: record.pendingOperation = .signOut
            case .deletionJournaled: record.pendingOperation = .deleteAccount
            case .nothing, .active, .due, .expired: break
            }
            h.store.replaceRecord(record)
        }
        switch stored {
        case .due: h.clock.advance(by: .seconds(3570))
        case .expired: h.clock.advance(by: .seconds(7200))
        case .nothing, .active, .signOutJournaled, .deletionJournaled: h.clock.advance(by: .seconds(60))
        }
        // Every endpoint a launch might call.
        let endpoints: [SimulatedProviderEndpoint] = [.token, .revocation, .disconnect, .jwks, .deviceKeyExchange]
        switch network {
        case .online: break
        case .offline: for endpoint in endpoints { h.provider.script(.connectionFailure, on: endpoint, times: 1_000) }
        case .hanging: for endpoint in endpoints { h.provider.script(.slow(.seconds(86_400)), on: endpoint, times: 1_000) }
        }
        let relaunched = await h.relaunch()
        let requestsBefore = h.provider.requestLog.count

        // Hanging: the provider would answer after a simulated day, and the clock does not move,
        // so returning at all proves no request was awaited.
        let stage = try await relaunched.restore()
        #expect(stage == Self.restoredStage(stored), "\(stored), \(network)")

        // What happens next, in the background.
        switch (stored, network) {
        case (.nothing, _), (.active, _):
            #expect(h.provider.requestLog.count == requestsBefore, "nothing to ask the provider")
            #expect(relaunched.stage == stage)
        case (.due, .online), (.expired, .online):
            await h.waitUntil("refreshed") { relaunched.stage == .active && relaunched.waitingCallerCount == 0 }
            #expect(try await relaunched.validAccessToken().secret == h.store.record.session?.accessToken)
        case (.signOutJournaled, .online), (.deletionJournaled, .online):
            await h.waitUntil("the journaled operation ended") { relaunched.stage == .signedOut }
            #expect(h.store.record.session == nil && h.store.record.pendingOperation == nil)
        case (.due, _), (.expired, _):
            // Still signed in on the stored tokens while the provider cannot be reached.
            #expect(relaunched.stage == .refreshing || relaunched.stage == .active)
            #expect(h.store.record.session != nil)
        case (.signOutJournaled, _), (.deletionJournaled, _):
            // Still under way; the journal keeps it for the next try.
            await #expect(throws: SessionError.self) { try await relaunched.validAccessToken() }
            #expect(h.store.record.pendingOperation != nil)
        }
        await relaunched.shutdown()
    }
}
