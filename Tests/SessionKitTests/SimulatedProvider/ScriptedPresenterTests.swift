import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Synchronization
import Testing

@Suite("Scripted presenter", .timeLimit(.minutes(1)))
struct ScriptedPresenterTests {
    private func request(_ fixture: ProviderFixture, pkce: PKCE) -> HandoffRequest {
        HandoffRequest(authorizationURL: fixture.authorizationURL(pkce: pkce), redirectURI: fixture.configuration.redirectURI)
    }

    @Test func approvalReturnsACallbackWhoseCodeExchanges() async throws {
        let fixture = try ProviderFixture()
        let presenter = ScriptedPresenter(provider: fixture.provider, behaviours: [.approve(subject: "alice")])
        let pkce = try PKCE.generate()
        let answer = try await presenter.present(request(fixture, pkce: pkce))
        try #require(answer != nil, "the presenter returned no callback")
        let code = try ProviderFixture.code(in: answer ?? fixture.configuration.redirectURI)
        #expect(try await fixture.exchange(code: code, pkce: pkce).status == 200)
        #expect(presenter.presentedRequests == [request(fixture, pkce: pkce)])
        #expect(presenter.remainingBehaviourCount == 0)
    }

    @Test func appToAppApprovalGoesThroughTheHandlerAndReturnsNil() async throws {
        let fixture = try ProviderFixture()
        let presenter = ScriptedPresenter(provider: fixture.provider)
        presenter.enqueue(.approve(subject: "alice", delivery: .appToApp))
        let delivered = Locked<[URL]>([])
        presenter.onAppToAppOpen { url in delivered.withLock { $0.append(url) } }
        let result = try await presenter.present(request(fixture, pkce: try PKCE.generate()))
        #expect(result == nil)
        let urls = delivered.withLock { $0 }
        let count = urls.count
        #expect(count == 1)
        _ = try ProviderFixture.code(in: urls.first ?? fixture.configuration.redirectURI)
    }

    @Test func appToAppWithoutAHandlerFails() async throws {
        let fixture = try ProviderFixture()
        let presenter = ScriptedPresenter(provider: fixture.provider, behaviours: [.deny(delivery: .appToApp)])
        await #expect(throws: HandoffError.presentationFailed("no app-to-app handler is set")) {
            try await presenter.present(request(fixture, pkce: try PKCE.generate()))
        }
    }

    @Test func denyCancelFailAndAnswerPlayInOrder() async throws {
        let fixture = try ProviderFixture()
        let unrelated = URL(string: "https://example.test/unrelated")!
        let presenter = ScriptedPresenter(
            provider: fixture.provider, behaviours: [.deny(), .cancel, .fail("no browser"), .answer(unrelated), .answer(nil)])
        let handoff = request(fixture, pkce: try PKCE.generate())

        let denied = try #require(try await presenter.present(handoff))
        #expect(ProviderFixture.query(denied)["error"] == "access_denied")
        await #expect(throws: HandoffError.cancelled) { try await presenter.present(handoff) }
        await #expect(throws: HandoffError.presentationFailed("no browser")) { try await presenter.present(handoff) }
        #expect(try await presenter.present(handoff) == unrelated)
        #expect(try await presenter.present(handoff) == nil)
        await #expect(throws: HandoffError.presentationFailed("no scripted behaviour left")) {
            try await presenter.present(handoff)
        }
        #expect(presenter.presentedRequests.count == 6)
    }

    @Test func providerErrorPagesBecomePresentationFailures() async throws {
        let fixture = try ProviderFixture()
        let presenter = ScriptedPresenter(provider: fixture.provider, behaviours: [.approve(subject: "alice")])
        let bad = HandoffRequest(
            authorizationURL: fixture.authorizationURL(pkce: try PKCE.generate(), clientID: "intruder"),
            redirectURI: fixture.configuration.redirectURI)
        await #expect(throws: HandoffError.self) { try await presenter.present(bad) }
    }

    @Test func neverAnswerSuspendsUntilTheTaskIsCancelled() async throws {
        let fixture = try ProviderFixture()
        let presenter = ScriptedPresenter(provider: fixture.provider, behaviours: [.neverAnswer, .neverAnswer])
        let handoff = request(fixture, pkce: try PKCE.generate())
        let first = Task { () -> Result<URL?, HandoffError> in
            do throws(HandoffError) { return .success(try await presenter.present(handoff)) } catch { return .failure(error) }
        }
        let second = Task { () -> Result<URL?, HandoffError> in
            do throws(HandoffError) { return .success(try await presenter.present(handoff)) } catch { return .failure(error) }
        }
        await presenter.waitForSuspendedPresentations(count: 2)
        #expect(presenter.suspendedPresentationCount == 2)
        first.cancel()
        #expect(await first.value == .failure(.cancelled))
        #expect(presenter.suspendedPresentationCount == 1)
        second.cancel()
        #expect(await second.value == .failure(.cancelled))
        #expect(presenter.suspendedPresentationCount == 0)
    }

    @Test func neverAnswerInAnAlreadyCancelledTaskEndsAtOnce() async throws {
        let fixture = try ProviderFixture()
        let presenter = ScriptedPresenter(provider: fixture.provider, behaviours: [.neverAnswer])
        let handoff = request(fixture, pkce: try PKCE.generate())
        let task = Task { () -> Result<URL?, HandoffError> in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(HandoffError) { return .success(try await presenter.present(handoff)) } catch { return .failure(error) }
        }
        #expect(await task.value == .failure(.cancelled))
        #expect(presenter.suspendedPresentationCount == 0)
    }
}
