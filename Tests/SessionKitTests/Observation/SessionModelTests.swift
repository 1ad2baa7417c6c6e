import Foundation
import Observation
import SessionKitTesting
import Testing

@testable import SessionKit

/// The observable model follows a real session on the simulated provider; every property's
/// change is seen through Observation's tracking.
@MainActor
@Suite(.timeLimit(.minutes(1)))
struct SessionModelTests {
    /// A model of `env`'s session: it follows every event from its creation on.
    private func following(_ env: SimulatedSessionEnvironment) async -> SessionModel {
        SessionModel(session: env.session)
    }

    @Test func signingInChangesIsSignedInStageAndIdentity() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        let signedIn = ObservedChanges { model.isSignedIn }
        let stages = ObservedChanges { model.stage }
        let identities = ObservedChanges { model.identity }
        env.presenter.enqueue(.approve(subject: "alice"))

        await model.signIn()
        await observeUntil { model.isSignedIn && model.identity != nil }

        #expect(model.stage == .active)
        #expect(model.identity?.subject == "alice")
        #expect(model.lastError == nil)
        #expect(signedIn.count == 1)
        #expect(identities.count == 1)
        #expect(stages.count == 3, "handoff, verifying, active")
    }

    @Test func aRefreshIsStillSignedInAndChangesOnlyTheStage() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        env.presenter.enqueue(.approve(subject: "alice"))
        await model.signIn()
        await observeUntil { model.isSignedIn && model.identity != nil }
        let signedIn = ObservedChanges { model.isSignedIn }
        let identities = ObservedChanges { model.identity }
        let stages = ObservedChanges { model.stage }

        _ = try await env.session.refresh()
        await stages.wait(for: 2)
        await observeUntil { model.stage == .active }

        #expect(signedIn.count == 0, "a refresh never looks like a sign-out")
        #expect(identities.count == 0, "the same verified identity")
        #expect(model.isSignedIn)
    }

    @Test func aSignOutTheProviderHasNotConfirmedIsThePendingOperation() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        env.presenter.enqueue(.approve(subject: "alice"))
        await model.signIn()
        await observeUntil { model.identity != nil }
        let pending = ObservedChanges { model.pendingOperation }
        let signedIn = ObservedChanges { model.isSignedIn }
        env.provider.script(.serverError(status: 503), on: .revocation, times: 1)

        let signOut = Task { await model.signOut() }
        await observeUntil { model.pendingOperation == .signOut }
        #expect(model.stage == .revoking)
        #expect(!model.isSignedIn)
        #expect(model.identity?.subject == "alice", "the model keeps showing whom the sign-out concerns")
        await env.clock.waitForSleepers()
        env.clock.advanceToNextDeadline()
        await signOut.value
        await observeUntil { model.stage == .signedOut }

        #expect(model.pendingOperation == nil)
        #expect(model.identity == nil)
        #expect(pending.count == 2, "set while revoking, cleared once confirmed")
        #expect(signedIn.count == 1)
    }

    @Test func anAccountDeletionIsThePendingOperationWhileTheProviderConfirmsIt() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        env.presenter.enqueue(.approve(subject: "alice"))
        await model.signIn()
        await observeUntil { model.identity != nil }
        env.provider.script(.serverError(status: 503), on: .disconnect, times: 1)

        let deletion = Task { await model.deleteAccount() }
        await observeUntil { model.pendingOperation == .deleteAccount }
        await env.clock.waitForSleepers()
        env.clock.advanceToNextDeadline()
        await deletion.value
        await observeUntil { model.stage == .signedOut }

        #expect(model.pendingOperation == nil)
        #expect(model.lastError == nil)
    }

    @Test func aSignInWithOptionsSendsThemAndSignsIn() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        env.presenter.enqueue(.approve(subject: "alice"))

        await model.signIn(options: try AuthorizationRequestOptions(prompt: [.login], maxAge: 300))
        await observeUntil { model.isSignedIn && model.identity != nil }

        let record = try #require(env.provider.authorizationRecords.last)
        #expect(record.prompt == ["login"])
        #expect(record.maxAge == 300)
        #expect(model.identity?.claims.authenticationTime != nil, "max_age makes auth_time required and checked")
        #expect(model.lastError == nil)
    }

    @Test func aDeviceSignInShowsTheCodeThroughThePresenterAndSignsIn() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        env.presenter.enqueue(.enterDeviceCode(subject: "alice"))

        let signIn = Task { await model.signInWithDeviceCode() }
        await env.waitUntil { env.presenter.presentedDeviceCodes.count == 1 }
        await env.advanceToNextSleeper()  // the first poll, after the provider's interval: approved
        await signIn.value
        await observeUntil { model.isSignedIn && model.identity != nil }

        #expect(env.presenter.presentedDeviceCodes.count == 1)
        #expect(env.provider.requestCount(for: .deviceAuthorization) == 1)
        #expect(model.identity?.subject == "alice")
        #expect(model.stage == .active)
    }

    @Test func aDeviceSignInThePresenterCannotShowIsTheLastError() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        env.presenter.enqueue(.approve(subject: "alice"))  // a browser answer, not a device code

        await model.signInWithDeviceCode()
        await observeUntil { model.lastError != nil }

        #expect(!model.isSignedIn)
        #expect(env.provider.requestCount(for: .token) == 0)
    }

    @Test func aDeclinedSignInIsTheLastErrorUntilCleared() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        let errors = ObservedChanges { model.lastError }
        env.presenter.enqueue(.deny())

        await model.signIn()
        await observeUntil { model.lastError != nil }

        #expect(model.lastError == .session(.authorizationDenied(error: "access_denied")))
        #expect(!model.isSignedIn)
        model.clearError()
        #expect(model.lastError == nil)
        #expect(errors.count == 2)
    }

    @Test func aCallTheSessionRefusesWithoutAnEventIsTheLastError() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        env.presenter.enqueue(.neverAnswer)
        let first = Task { try await env.session.signIn() }
        await env.presenter.waitForSuspendedPresentations()

        await model.signIn()

        #expect(model.lastError == .call(.signInInProgress))
        first.cancel()
        _ = await first.result
    }

    @Test func aRejectedRefreshTokenIsShownEvenWhenNoCallWasMadeThroughTheModel() async throws {
        let env = try SimulatedSessionEnvironment()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        let model = await following(env)
        await observeUntil { model.isSignedIn }
        env.provider.script(.invalidGrant, on: .token, times: 1)

        await #expect(throws: SessionError.refreshTokenRejected) { try await env.session.refresh() }
        await observeUntil { model.lastError != nil }

        guard case .session(let reason) = model.lastError, reason.code == .refreshRejected else {
            Issue.record("expected the refresh rejection, got \(String(describing: model.lastError))")
            return
        }
        #expect(model.stage == .signedOut && !model.isSignedIn && model.identity == nil)
    }

    @Test func aCancelledHandoffIsNotAnError() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        env.presenter.enqueue(.cancel)

        await model.signIn()
        await observeUntil { model.stage == .signedOut }

        #expect(model.lastError == nil)
    }

    @Test func aModelMadeForAnActiveSessionStartsSignedIn() async throws {
        let env = try SimulatedSessionEnvironment()
        env.presenter.enqueue(.approve(subject: "bob"))
        try await env.session.signIn()

        let model = await following(env)
        await observeUntil { model.identity != nil }

        #expect(model.isSignedIn && model.stage == .active && model.identity?.subject == "bob")
    }

    // MARK: In step with its calls

    @Test func whenSignInReturnsTheModelAlreadyShowsTheSession() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        env.presenter.enqueue(.approve(subject: "alice"))
        await model.signIn()
        // No wait: the call's own events were applied before it returned.
        #expect(model.isSignedIn)
        #expect(model.stage == .active)
        #expect(model.identity?.subject == "alice")
        #expect(model.lastError == nil)
    }

    @Test func whenADeniedSignInReturnsTheErrorIsAlreadyShown() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        env.presenter.enqueue(.deny())
        await model.signIn()
        #expect(model.lastError == .session(.authorizationDenied(error: "access_denied")))
        #expect(!model.isSignedIn)
        #expect(model.stage == .signedOut)
    }

    @Test func whenSignOutAndDeletionReturnTheModelIsSignedOut() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        env.presenter.enqueue(.approve(subject: "alice"))
        await model.signIn()
        await model.signOut()
        #expect(!model.isSignedIn && model.stage == .signedOut && model.identity == nil && model.pendingOperation == nil)
        env.presenter.enqueue(.approve(subject: "alice"))
        await model.signIn()
        await model.deleteAccount()
        #expect(!model.isSignedIn && model.stage == .signedOut && model.identity == nil && model.pendingOperation == nil)
    }

    @Test func whenARefreshThroughTheModelReturnsItIsActiveAgainOrShowsWhyNot() async throws {
        let env = try SimulatedSessionEnvironment { $0.refreshRetry.maximumAttempts = 1 }
        let model = await following(env)
        env.presenter.enqueue(.approve(subject: "alice"))
        await model.signIn()
        await model.refresh()
        #expect(model.stage == .active && model.lastError == nil)
        env.provider.script(.forbidden, on: .token)
        await model.refresh()
        #expect(model.stage == .active)
        guard case .call(let error) = model.lastError else {
            Issue.record("expected the refused refresh as the last error, got \(String(describing: model.lastError))")
            return
        }
        #expect(error.identifier == "provider.http_403")
        #expect(error.category == .refused)
    }

    @Test func whenRestoreReturnsTheModelShowsTheRestoredStage() async throws {
        let env = try SimulatedSessionEnvironment()
        env.presenter.enqueue(.approve(subject: "alice"))
        try await env.session.signIn()
        let relaunched = await env.relaunch()
        let model = SessionModel(session: relaunched)
        #expect(model.stage == .signedOut)
        await model.restore()
        #expect(model.isSignedIn)
        #expect(model.identity?.subject == "alice")
    }

    @Test func theTestKitsWaitsWakeOnModelChangesMadeThroughTheSession() async throws {
        let env = try SimulatedSessionEnvironment()
        let model = await following(env)
        env.presenter.enqueue(.approve(subject: "alice"))
        // Through the session, not the model: the model follows on the main actor's next turn,
        // and the wait wakes when it does.
        try await env.session.signIn()
        await env.waitUntil { model.isSignedIn && model.identity != nil }
        #expect(model.stage == .active)
        try await env.session.signOut()
        // Through revoking (not signed in, identity still shown) to signedOut.
        await env.waitUntil { model.stage == .signedOut }
        #expect(!model.isSignedIn)
        #expect(model.identity == nil)
    }

    nonisolated static let unavailable = SessionError.provider(.http(status: 503, error: nil, retryAfterSeconds: nil, excerpt: ""))

    @Test(arguments: [
        TransitionReason.authorizationDenied(error: "access_denied"), .handoffTimedOut, .refreshRejected(nil),
        .storageFailed(.noSpace), .signedOutLocallyOnly(.unsupported(.revocation)), .accountDeletionRefused(status: 403),
    ])
    func failuresAreWorthShowing(_ reason: TransitionReason) {
        #expect(SessionModelError.isWorthShowing(reason))
    }

    @Test(arguments: [
        TransitionReason.handoffCancelled, .refreshFailedTransiently(Self.unavailable),
        .retrying(attempt: 1, afterSeconds: 1, because: Self.unavailable),
        .verified(subject: "a"), .current,
    ])
    func choicesAndTransientFailuresAreNot(_ reason: TransitionReason) {
        #expect(!SessionModelError.isWorthShowing(reason))
    }
}
