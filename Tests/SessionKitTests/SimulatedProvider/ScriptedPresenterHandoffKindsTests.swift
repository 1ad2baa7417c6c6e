import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// The scripted presenter's answers to end-session pages and device codes, and its refusal of a
/// behaviour scripted for another kind of handoff.
@Suite("Scripted presenter: end-session pages and device codes", .timeLimit(.minutes(1)))
struct ScriptedPresenterHandoffKindsTests {
    static let loggedOut = URL(string: "com.example.app://oauth/logged-out")!

    @Test func endSessionVisitsTheProvidersPageAndReturnsItsRedirect() async throws {
        let fixture = try ProviderFixture()
        let client = ProviderClient(
            configuration: try fixture.provider.providerConfiguration(), transport: fixture.provider, now: { Date() })
        let logout = try EndSessionRequest(idTokenHint: nil, postLogoutRedirectURI: Self.loggedOut, state: Secret("logout-state"))
        let url = try #require(client.endSessionURL(for: logout))
        let presenter = ScriptedPresenter(provider: fixture.provider, behaviours: [.endSession()])
        let request = HandoffRequest(endSessionURL: url, postLogoutRedirectURI: Self.loggedOut)
        #expect(request.kind == .endSession)
        #expect(request.url == url)
        let returned = try #require(try await presenter.present(request))
        #expect(logout.match(returned) == .completed)
        #expect(fixture.provider.endSessionRecords.count == 1)
    }

    @Test func aBehaviourForAnotherKindFailsThePresentation() async throws {
        let fixture = try ProviderFixture()
        let presenter = ScriptedPresenter(
            provider: fixture.provider, behaviours: [.approve(subject: "alice"), .endSession(), .showDeviceCode])
        let endSession = HandoffRequest(
            endSessionURL: URL(string: "https://sim.1pass.test/oauth/logout")!, postLogoutRedirectURI: Self.loggedOut)
        await #expect(throws: HandoffError.presentationFailed("the scripted behaviour does not answer an end-session page")) {
            try await presenter.present(endSession)
        }
        let prompt = DeviceCodePrompt(userCode: "SIMU-0001", verificationURI: URL(string: "https://sim.1pass.test/device")!, expiresIn: 600)
        await #expect(throws: HandoffError.presentationFailed("the scripted behaviour does not answer a device code")) {
            try await presenter.presentDeviceCode(prompt)
        }
        let authorization = HandoffRequest(
            authorizationURL: URL(string: "https://sim.1pass.test/oauth/authorize")!, redirectURI: Self.loggedOut)
        await #expect(throws: HandoffError.presentationFailed("the scripted behaviour does not answer an authorization page")) {
            try await presenter.present(authorization)
        }
        #expect(presenter.presentedDeviceCodes == [prompt])
    }

    @Test func enteringAnUnknownCodeFails() async throws {
        let fixture = try ProviderFixture()
        let presenter = ScriptedPresenter(provider: fixture.provider, behaviours: [.enterDeviceCode(subject: "alice")])
        let prompt = DeviceCodePrompt(userCode: "NOPE-0000", verificationURI: URL(string: "https://sim.1pass.test/device")!, expiresIn: 600)
        await #expect(throws: HandoffError.presentationFailed("the verification page does not know the user code")) {
            try await presenter.presentDeviceCode(prompt)
        }
    }

    @Test func aPresenterWrittenBeforeDeviceCodesFailsThemTyped() async throws {
        struct OldPresenter: HandoffPresenter {
            func present(_ request: HandoffRequest) async throws(HandoffError) -> URL? { nil }
        }
        let prompt = DeviceCodePrompt(userCode: "SIMU-0001", verificationURI: URL(string: "https://sim.1pass.test/device")!, expiresIn: 600)
        await #expect(throws: HandoffError.unsupported("this presenter cannot show a device code")) {
            try await OldPresenter().presentDeviceCode(prompt)
        }
    }
}
