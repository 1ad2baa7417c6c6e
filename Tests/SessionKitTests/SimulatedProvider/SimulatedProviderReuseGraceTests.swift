import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// The refresh-token reuse grace period: a client that lost the answer to its last refresh may
/// present the token it still holds once more, for a short while, without losing the chain.
@Suite("Simulated provider: refresh-token reuse grace period")
struct SimulatedProviderReuseGraceTests {
    private static func fixture(grace: Duration? = .seconds(30)) throws -> ProviderFixture {
        try ProviderFixture(SimulatedProviderConfiguration(refreshTokenReuseGracePeriod: grace))
    }

    @Test func strictByDefault() {
        #expect(SimulatedProviderConfiguration().refreshTokenReuseGracePeriod == nil)
    }

    @Test func replayOfTheReplacedTokenWithinTheGracePeriodRotatesTheSameChain() async throws {
        let fixture = try Self.fixture()
        let first = try await fixture.signIn()
        let lost = try ProviderFixture.tokens(try await fixture.refresh(first.refreshToken))
        fixture.clock.advance(by: .seconds(29))

        let replay = try await fixture.refresh(first.refreshToken)

        #expect(replay.status == 200)
        let third = try ProviderFixture.tokens(replay)
        #expect(third.refreshToken != lost.refreshToken && third.refreshToken != first.refreshToken)
        #expect(fixture.provider.isRefreshTokenActive(third.refreshToken))
        #expect(!fixture.provider.isRefreshTokenActive(lost.refreshToken), "the answer nobody received is retired")
        #expect(!fixture.provider.isRefreshTokenActive(first.refreshToken), "a forgiven replay is not active")
        #expect(fixture.provider.revokedChains.isEmpty)
        #expect(fixture.provider.activeGrantCount == 1)
        // The chain goes on from the new token.
        #expect(try await fixture.refresh(third.refreshToken).status == 200)
    }

    @Test func theReplacedTokenStaysForgivenUntilTheGracePeriodEndsThenReuseRevokes() async throws {
        let fixture = try Self.fixture()
        let first = try await fixture.signIn()
        _ = try await fixture.refresh(first.refreshToken)
        // Lost twice in a row: the period runs from the first rotation, not from each replay.
        fixture.clock.advance(by: .seconds(10))
        #expect(try await fixture.refresh(first.refreshToken).status == 200)
        fixture.clock.advance(by: .seconds(10))
        let second = try await fixture.refresh(first.refreshToken)
        #expect(second.status == 200)
        fixture.clock.advance(by: .seconds(10))

        let late = try await fixture.refresh(first.refreshToken)

        #expect(ProviderFixture.errorCode(late) == "invalid_grant")
        #expect(fixture.provider.revokedChains.map(\.reason) == [.refreshTokenReuse])
        #expect(!fixture.provider.isRefreshTokenActive(try ProviderFixture.tokens(second).refreshToken))
    }

    @Test func olderTokensAndAbandonedAnswersAreStillReuse() async throws {
        let fixture = try Self.fixture()
        let first = try await fixture.signIn()
        let second = try ProviderFixture.tokens(try await fixture.refresh(first.refreshToken))
        _ = try ProviderFixture.tokens(try await fixture.refresh(second.refreshToken))

        // Two rotations back: not the immediately previous token.
        #expect(ProviderFixture.errorCode(try await fixture.refresh(first.refreshToken)) == "invalid_grant")
        #expect(fixture.provider.revokedChains.map(\.reason) == [.refreshTokenReuse])

        let other = try Self.fixture()
        let start = try await other.signIn()
        let abandoned = try ProviderFixture.tokens(try await other.refresh(start.refreshToken))
        _ = try ProviderFixture.tokens(try await other.refresh(start.refreshToken))
        // The answer the forgiven replay replaced was never received: presenting it is reuse.
        #expect(ProviderFixture.errorCode(try await other.refresh(abandoned.refreshToken)) == "invalid_grant")
        #expect(other.provider.revokedChains.map(\.reason) == [.refreshTokenReuse])
    }

    @Test func withoutAGracePeriodTheReplayRevokesTheChain() async throws {
        let fixture = try Self.fixture(grace: nil)
        let first = try await fixture.signIn()
        let second = try ProviderFixture.tokens(try await fixture.refresh(first.refreshToken))

        #expect(ProviderFixture.errorCode(try await fixture.refresh(first.refreshToken)) == "invalid_grant")
        #expect(!fixture.provider.isRefreshTokenActive(second.refreshToken))
        #expect(fixture.provider.revokedChains.map(\.reason) == [.refreshTokenReuse])
    }

    @Test func aRevokedChainIsNotForgiven() async throws {
        let fixture = try Self.fixture()
        let first = try await fixture.signIn()
        let second = try ProviderFixture.tokens(try await fixture.refresh(first.refreshToken))
        #expect(try await fixture.revoke(second.refreshToken).status == 200)

        #expect(ProviderFixture.errorCode(try await fixture.refresh(first.refreshToken)) == "invalid_grant")
        #expect(fixture.provider.revokedChains.map(\.reason) == [.revocation])
    }
}
