import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

/// Nothing a session publishes, throws or stores shows a token, code or device secret in its
/// text: descriptions, debug descriptions and `dump` output are collected across scenarios and
/// searched for every secret the provider issued.
@Suite("Session no secrets")
struct SessionNoSecretsTests {
    /// Every text an app might print or log during one scenario.
    final class Printed: Sendable {
        private let texts = Collected<String>()

        var all: [String] { texts.values }

        func add(_ value: some Any) {
            texts.append(String(describing: value))
            texts.append(String(reflecting: value))
            var dumped = ""
            dump(value, to: &dumped)
            texts.append(dumped)
        }

        func add(_ error: SessionError) {
            add(error as Any)
            texts.append(error.localizedDescription)
            if let provider = error.providerError { texts.append(provider.summary) }
        }

        /// Runs `body`, recording what it returned or threw.
        func call<Value: Sendable>(_ body: () async throws(SessionError) -> Value) async {
            do {
                add(try await body() as Any)
            } catch {
                add(error)
            }
        }
    }

    enum Scenario: String, CaseIterable, Sendable, CustomStringConvertible {
        case happyPathAndRestore, tamperedRefresh, refreshOutage, refreshRejected, refreshRefused, exchangeFailures
        case revocationRefused, accountDeletion, deletionRefused, callbackRejected
        case deviceSignIn, deviceSignInFailures, providerLogout, providerLogoutRefused

        var description: String { rawValue }

        /// The harness each scenario runs on.
        func makeHarness() throws -> SimulatedSessionEnvironment {
            switch self {
            case .providerLogout, .providerLogoutRefused:
                try SimulatedSessionEnvironment {
                    $0.endsProviderSessionAtSignOut = true
                    $0.postLogoutRedirectURI = URL(string: "com.example.app://oauth/logged-out")
                }
            case .deviceSignInFailures:
                try SimulatedSessionEnvironment(provider: SimulatedProviderConfiguration(issuesIDTokenForDeviceGrant: false))
            default:
                try SimulatedSessionEnvironment()
            }
        }

        func run(_ h: SimulatedSessionEnvironment, _ printed: Printed) async throws {
            let session = h.session
            switch self {
            case .happyPathAndRestore:
                try await h.signIn()
                await printed.call { () async throws(SessionError) in try await session.validAccessToken() }
                printed.add(session.identity as Any)
                h.clock.advance(by: .seconds(3540))
                await printed.call { () async throws(SessionError) in try await session.validAccessToken() }
                await printed.call { () async throws(SessionError) in try await session.refresh() }
                let relaunched = await h.relaunch()
                await printed.call { () async throws(SessionError) in try await relaunched.restore() }
                await printed.call { () async throws(SessionError) in try await relaunched.validAccessToken() }
                await printed.call { () async throws(SessionError) in try await relaunched.signOut() }
            case .tamperedRefresh:
                try await h.signIn()
                h.clock.advance(by: .seconds(3540))
                h.provider.script(.tamperedIDToken(.badSignature), on: .token)
                await printed.call { () async throws(SessionError) in try await session.validAccessToken() }
                await h.waitUntil("both refresh tokens revoked") { h.deferredRevocations == 2 }
            case .refreshOutage:
                try await h.signIn()
                h.clock.advance(by: .seconds(3540))
                h.provider.script(.serverError(status: 503, retryAfterSeconds: 2), on: .token, times: 2)
                h.provider.script(.malformedJSON, on: .token)
                let caller = Task { await SessionCallResult { () async throws(SessionError) in try await session.validAccessToken() } }
                await h.advanceToNextSleeper()
                await h.advanceToNextSleeper()
                printed.add(await caller.value.error as Any)
            case .refreshRejected:
                try await h.signIn()
                h.provider.script(.invalidGrant, on: .token)
                await printed.call { () async throws(SessionError) in try await session.refresh() }
            case .refreshRefused:
                try await h.signIn()
                h.provider.script(.unauthorized, on: .token)
                h.provider.script(.forbidden, on: .token)
                await printed.call { () async throws(SessionError) in try await session.refresh() }
                await printed.call { () async throws(SessionError) in try await session.refresh() }
                await printed.call { () async throws(SessionError) in try await session.refresh() }
            case .exchangeFailures:
                for fault in [SimulatedProviderFault.invalidGrant, .malformedJSON, .tamperedIDToken(.nonce("other"))] {
                    h.provider.script(fault, on: .token)
                    h.presenter.enqueue(.approve(subject: "alice"))
                    await printed.call { () async throws(SessionError) in try await session.signIn() }
                }
                await h.waitUntil("the rejected refresh token revoked") { h.deferredRevocations == 1 }
            case .revocationRefused:
                try await h.signIn()
                h.provider.script(.invalidGrant, on: .revocation)
                await printed.call { () async throws(SessionError) in try await session.signOut() }
            case .accountDeletion:
                try await h.signIn()
                h.provider.script(.serverError(status: 500), on: .disconnect)
                let deletion = Task { await SessionCallResult { () async throws(SessionError) in try await session.deleteAccount() } }
                await h.advanceToNextSleeper()
                printed.add(await deletion.value.error as Any)
                await h.waitUntil("refresh token revoked") { h.deferredRevocations == 1 }
            case .deletionRefused:
                try await h.signIn()
                h.provider.script(.forbidden, on: .disconnect)
                await printed.call { () async throws(SessionError) in try await session.deleteAccount() }
                printed.add(h.store.device as Any)
            case .callbackRejected:
                h.presenter.enqueue(.neverAnswer)
                let signIn = Task { await SessionCallResult { () async throws(SessionError) in try await session.signIn() } }
                await h.presenter.waitForSuspendedPresentations(count: 1)
                let callback = try h.authorizePending()
                let foreign = try #require(URL(string: callback.absoluteString.replacingOccurrences(of: "state=", with: "state=x")))
                printed.add(session.handle(foreign))
                let forged = try #require(URL(string: callback.absoluteString.replacingOccurrences(of: "iss=", with: "iss=x")))
                printed.add(session.handle(forged))
                printed.add(await signIn.value.error as Any)
            case .deviceSignIn:
                h.provider.scriptDeviceAuthorization(
                    SimulatedProviderDeviceScript(subject: "alice", decidedAtPoll: 2, slowDownAtPolls: [1]))
                h.presenter.enqueue(.showDeviceCode)
                let signIn = Task { await SessionCallResult { () async throws(SessionError) in try await session.signInWithDeviceCode() } }
                await h.waitUntil("the code is shown") { h.presenter.presentedDeviceCodes.count == 1 }
                await h.advanceToNextSleeper()
                await h.advanceToNextSleeper()
                printed.add(await signIn.value as Any)
                for prompt in h.presenter.presentedDeviceCodes { printed.add(prompt) }
                await printed.call { () async throws(SessionError) in try await session.fetchUserInfo() }
            case .deviceSignInFailures:
                // No id_token (refused by default), then a denial, then a cancellation between polls.
                let behaviours: [ScriptedPresenter.Behaviour] = [
                    .enterDeviceCode(subject: "alice"), .enterDeviceCode(subject: "alice", decision: .deny),
                ]
                for (index, behaviour) in behaviours.enumerated() {
                    h.presenter.enqueue(behaviour)
                    let signIn = Task {
                        await SessionCallResult { () async throws(SessionError) in try await session.signInWithDeviceCode() }
                    }
                    await h.waitUntil("the code is shown") { h.presenter.presentedDeviceCodes.count == index + 1 }
                    await h.advanceToNextSleeper()
                    printed.add(await signIn.value.error as Any)
                }
                h.presenter.enqueue(.showDeviceCode)
                let cancelled = Task {
                    await SessionCallResult { () async throws(SessionError) in try await session.signInWithDeviceCode() }
                }
                await h.waitUntil("the code is shown") { h.presenter.presentedDeviceCodes.count == 3 }
                await h.clock.waitForSleepers(count: 1)
                cancelled.cancel()
                printed.add(await cancelled.value.error as Any)
                await h.waitUntil("the unused refresh token revoked") { h.deferredRevocations == 1 }
            case .providerLogout:
                try await h.signIn()
                h.presenter.enqueue(.neverAnswer)
                let signOut = Task { await SessionCallResult { () async throws(SessionError) in try await session.signOut() } }
                await h.presenter.waitForSuspendedPresentations(count: 1)
                let request = try #require(h.presenter.presentedRequests.last)
                h.issued.recordEndSession(request.url)
                let returned = try #require(try h.provider.endSession(request.url))
                let forged = try #require(URL(string: returned.absoluteString.replacingOccurrences(of: "state=", with: "state=x")))
                printed.add(session.handle(forged))
                printed.add(session.handle(returned))
                printed.add(await signOut.value.error as Any)
                for record in h.provider.endSessionRecords { printed.add(record) }
            case .providerLogoutRefused:
                try await h.signIn()
                h.presenter.enqueue(.cancel)
                await printed.call { () async throws(SessionError) in try await session.signOut() }
                h.issued.recordEndSession(try #require(h.presenter.presentedRequests.last).url)
                try await h.signIn()
                h.presenter.enqueue(.neverAnswer)
                let signOut = Task { await SessionCallResult { () async throws(SessionError) in try await session.signOut() } }
                await h.presenter.waitForSuspendedPresentations(count: 1)
                h.issued.recordEndSession(try #require(h.presenter.presentedRequests.last).url)
                await h.advanceToNextSleeper()
                printed.add(await signOut.value.error as Any)
            }
        }
    }

    @Test("no event, error, reason, record or request log shows a secret the provider issued", arguments: Scenario.allCases)
    func nothingLeaks(scenario: Scenario) async throws {
        let h = try scenario.makeHarness()
        await h.startRecording()
        let printed = Printed()
        try await scenario.run(h, printed)

        for event in h.events {
            printed.add(event)
            if case .transition(let transition) = event { printed.add(transition.reason) }
        }
        for entry in h.provider.requestLog { printed.add(entry) }
        printed.add(h.store.record)
        for record in h.journal.savedRecords { printed.add(record) }
        printed.add(h.presenter.presentedRequests.map(\.redirectURI))

        let secrets = h.issued.all
        #expect(!secrets.isEmpty)
        #expect(!h.events.isEmpty)
        let texts = printed.all
        // Only counts reach the expectations, so a failure never prints the secret it found.
        let tooShort = secrets.count { $0.value.count < 20 }
        #expect(tooShort == 0)
        for (index, secret) in secrets.enumerated() {
            let leaks = texts.count { $0.contains(secret.value) }
            #expect(leaks == 0, "secret #\(index) appears in \(leaks) printed text(s) of \(scenario)")
        }
    }

    @Test("the scenarios together exercise every kind of secret")
    func coverage() async throws {
        var kinds = (access: 0, refresh: 0, id: 0, code: 0, deviceKey: 0, deviceCode: 0, endSessionState: 0)
        for scenario in Scenario.allCases {
            let h = try scenario.makeHarness()
            await h.startRecording()
            try await scenario.run(h, Printed())
            kinds.access += h.issued.accessTokens.count
            kinds.refresh += h.issued.refreshTokens.count
            kinds.id += h.issued.idTokens.count
            kinds.code += h.issued.codes.count
            kinds.deviceKey += h.issued.deviceKeys.count
            kinds.deviceCode += h.issued.deviceCodes.count
            kinds.endSessionState += h.issued.endSessionStates.count
        }
        #expect(kinds.access >= 10)
        #expect(kinds.refresh >= 10)
        #expect(kinds.id >= 10)
        #expect(kinds.code >= 10)
        #expect(kinds.deviceKey >= 2)
        #expect(kinds.deviceCode >= 4)
        #expect(kinds.endSessionState >= 3)
    }
}
