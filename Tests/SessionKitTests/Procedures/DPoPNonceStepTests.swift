import Foundation
import SessionKitCore
import Testing

@testable import SessionKit

/// RFC 9449's nonce step for the requests the session sends once: one retry with the nonce the
/// server gave, never a loop, and what a second demand is.
@Suite("DPoP nonce step")
struct DPoPNonceStepTests {
    private static let useNonce = ProviderError.dpop(DPoPFailure(.useNonce))

    /// Counts the attempts and answers each from `answers`, in order.
    private final class Attempts: Sendable {
        private let state: Locked<(count: Int, answers: [Result<String, ProviderError>])>

        init(_ answers: [Result<String, ProviderError>]) {
            state = Locked((0, answers))
        }

        var count: Int { state.withLock { $0.count } }

        func next() throws(ProviderError) -> String {
            let answer = state.withLock { state -> Result<String, ProviderError> in
                state.count += 1
                return state.answers.removeFirst()
            }
            return try answer.get()
        }
    }

    @Test func aNonceDemandIsSentOnceMore() async throws {
        let attempts = Attempts([.failure(Self.useNonce), .success("tokens")])
        let answer = try await DPoPNonceStep.sendingOnceMoreForNonce(at: .token) { () throws(ProviderError) in try attempts.next() }
        #expect(answer == "tokens")
        #expect(attempts.count == 2)
    }

    @Test(arguments: [ProviderEndpoint.token, .revocation, .deviceAuthorization])
    func aSecondDemandIsTheProvidersAnswerNeverAThirdRequest(endpoint: ProviderEndpoint) async {
        let attempts = Attempts([.failure(Self.useNonce), .failure(Self.useNonce), .success("never")])
        await #expect(throws: ProviderError.http(status: 400, error: "use_dpop_nonce", retryAfterSeconds: nil, excerpt: "")) {
            try await DPoPNonceStep.sendingOnceMoreForNonce(at: endpoint) { () throws(ProviderError) in try attempts.next() }
        }
        #expect(attempts.count == 2)
    }

    @Test func anyOtherAnswerIsNotRetried() async {
        let refused = ProviderError.http(status: 400, error: "invalid_dpop_proof", retryAfterSeconds: nil, excerpt: "")
        let attempts = Attempts([.failure(refused), .success("never")])
        await #expect(throws: refused) {
            try await DPoPNonceStep.sendingOnceMoreForNonce(at: .token) { () throws(ProviderError) in try attempts.next() }
        }
        #expect(attempts.count == 1)
    }

    @Test func userInfoIsSentOnceMoreAndASecondDemandIsA401() async {
        let attempts = Attempts([.failure(Self.useNonce), .failure(Self.useNonce), .success("never")])
        do {
            _ = try await DPoPNonceStep.sendingOnceMoreForNonce { () throws(UserInfoFetchError) -> String in
                do throws(ProviderError) { return try attempts.next() } catch { throw .provider(error) }
            }
            Issue.record("a second nonce demand passed")
        } catch {
            guard case .provider(let answer) = error else {
                Issue.record("not the provider's answer: \(error)")
                return
            }
            #expect(answer == .http(status: 401, error: "use_dpop_nonce", retryAfterSeconds: nil, excerpt: ""))
        }
        #expect(attempts.count == 2)
    }
}
