import Testing

@testable import SessionKit

extension StateMachineTests {
    /// API misuse: the caller, and only the caller, gets a thrown error; the session does not move.
    @Suite struct SessionStateMachineMisuseTests {
        typealias Script = MachineScript

        /// One misuse: calling `event` in `stage` fails the caller with `error`.
        struct Misuse: Sendable, Hashable, CustomTestStringConvertible {
            var stage: SessionStage
            var event: SessionInput
            var error: SessionMisuse

            var testDescription: String { "\(event) in \(stage) throws \(error)" }
        }

        static let misuses: [Misuse] = [
            Misuse(stage: .handoff, event: .signIn, error: .signInInProgress),
            Misuse(stage: .verifying, event: .signIn, error: .signInInProgress),
            Misuse(stage: .active, event: .signIn, error: .alreadySignedIn),
            Misuse(stage: .refreshing, event: .signIn, error: .alreadySignedIn),
            Misuse(stage: .disconnecting, event: .signIn, error: .accountDeletionInProgress),

            Misuse(stage: .signedOut, event: .tokenRequested, error: .notSignedIn),
            Misuse(stage: .handoff, event: .tokenRequested, error: .notSignedIn),
            Misuse(stage: .verifying, event: .tokenRequested, error: .notSignedIn),
            Misuse(stage: .revoking, event: .tokenRequested, error: .signOutInProgress),
            Misuse(stage: .disconnecting, event: .tokenRequested, error: .accountDeletionInProgress),

            Misuse(stage: .signedOut, event: .refreshRequested, error: .notSignedIn),
            Misuse(stage: .handoff, event: .refreshRequested, error: .notSignedIn),
            Misuse(stage: .verifying, event: .refreshRequested, error: .notSignedIn),
            Misuse(stage: .revoking, event: .refreshRequested, error: .signOutInProgress),
            Misuse(stage: .disconnecting, event: .refreshRequested, error: .accountDeletionInProgress),

            Misuse(stage: .disconnecting, event: .signOut, error: .accountDeletionInProgress),

            Misuse(stage: .signedOut, event: .deleteAccount, error: .notSignedIn),
            Misuse(stage: .handoff, event: .deleteAccount, error: .notSignedIn),
            Misuse(stage: .verifying, event: .deleteAccount, error: .notSignedIn),
            Misuse(stage: .revoking, event: .deleteAccount, error: .signOutInProgress),

            Misuse(stage: .handoff, event: .deviceSignIn, error: .signInInProgress),
            Misuse(stage: .verifying, event: .deviceSignIn, error: .signInInProgress),
            Misuse(stage: .active, event: .deviceSignIn, error: .alreadySignedIn),
            Misuse(stage: .refreshing, event: .deviceSignIn, error: .alreadySignedIn),
            Misuse(stage: .disconnecting, event: .deviceSignIn, error: .accountDeletionInProgress),

            Misuse(stage: .handoff, event: .startGuestSession, error: .signInInProgress),
            Misuse(stage: .verifying, event: .startGuestSession, error: .signInInProgress),
            Misuse(stage: .active, event: .startGuestSession, error: .alreadySignedIn),
            Misuse(stage: .refreshing, event: .startGuestSession, error: .alreadySignedIn),
            Misuse(stage: .revoking, event: .startGuestSession, error: .signOutInProgress),
            Misuse(stage: .disconnecting, event: .startGuestSession, error: .accountDeletionInProgress),
        ]

        /// The misuses a guest session adds where its outcomes differ (`SessionTransitionTable.guestRules`),
        /// each with the way into its stage.
        static let guestMisuses: [Misuse] = [
            Misuse(stage: .refreshing, event: .signIn, error: .signInInProgress),
            Misuse(stage: .refreshing, event: .deviceSignIn, error: .signInInProgress),
            Misuse(stage: .handoff, event: .refreshRequested, error: .signInInProgress),
            Misuse(stage: .verifying, event: .refreshRequested, error: .signInInProgress),
        ]

        /// The error a caller gets for `misuse`, spelled out here rather than taken from `SessionMisuse.error`.
        static func thrown(_ misuse: SessionMisuse) -> SessionError {
            switch misuse {
            case .signInInProgress: .signInInProgress
            case .alreadySignedIn: .alreadySignedIn
            case .notSignedIn: .notSignedIn
            case .signOutInProgress: .signOutInProgress
            case .accountDeletionInProgress: .accountDeletionInProgress
            }
        }

        @Test func listCoversExactlyTheTablesMisusePairs() {
            let declared = SessionTransitionTable.rules.compactMap { rule -> Misuse? in
                guard case .misuse(let error) = rule.outcome else { return nil }
                return Misuse(stage: rule.stage, event: rule.event, error: error)
            }
            #expect(Set(declared) == Set(Self.misuses))
            #expect(declared.count == Self.misuses.count)
            let guestDeclared = SessionTransitionTable.guestRules.compactMap { rule -> Misuse? in
                guard case .misuse(let error) = rule.outcome else { return nil }
                return Misuse(stage: rule.stage, event: rule.event, error: error)
            }
            #expect(Set(guestDeclared) == Set(Self.guestMisuses))
        }

        @Test(arguments: guestMisuses)
        func aGuestSessionsMisuseFailsOnlyTheCaller(_ misuse: Misuse) throws {
            var m: MachineScript
            switch misuse.stage {
            case .refreshing: m = Script.makeGuestRenewing(waiters: [2])
            case .handoff: m = Script.makeGuestSigningIn()
            default:
                m = Script.makeGuestSigningIn()
                _ = m.callback()
            }
            let generation = m.generation
            let waiting = m.waiting
            let actions: [Script.Machine.Action]
            switch misuse.event {
            case .signIn: actions = m.signIn(attempt: 2, waiter: 1)
            case .deviceSignIn: actions = m.deviceSignIn(waiter: 1)
            default: actions = m.refreshRequested(waiter: 1)
            }
            #expect(actions == [.resume([1], .failed(Self.thrown(misuse.error)))])
            #expect(m.stage == misuse.stage)
            #expect(m.generation == generation)
            #expect(m.waiting == waiting)
        }

        @Test(arguments: misuses)
        func misuseFailsOnlyTheCaller(_ misuse: Misuse) throws {
            var m = Script.make(misuse.stage)
            let generation = m.generation
            let waiting = m.waiting
            let actions: [Script.Machine.Action]
            switch misuse.event {
            case .signIn: actions = m.signIn(attempt: 2, waiter: 1)
            case .tokenRequested: actions = m.tokenRequested(waiter: 1)
            case .refreshRequested: actions = m.refreshRequested(waiter: 1)
            case .signOut: actions = m.signOut(waiter: 1)
            case .deleteAccount: actions = m.deleteAccount(waiter: 1)
            case .deviceSignIn: actions = m.deviceSignIn(waiter: 1)
            case .startGuestSession: actions = m.startGuest(waiter: 1)
            default:
                Issue.record("\(misuse.event) carries no caller to refuse")
                return
            }
            #expect(actions == [.resume([1], .failed(Self.thrown(misuse.error)))])
            #expect(m.stage == misuse.stage)
            #expect(m.generation == generation)
            #expect(m.waiting == waiting)
        }
    }
}
