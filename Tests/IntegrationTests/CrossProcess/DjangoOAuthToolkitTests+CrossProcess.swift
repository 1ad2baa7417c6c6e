import Foundation
import SessionKit
import Testing

/// Several processes share one file store and refresh against django-oauth-toolkit, which
/// rotates refresh tokens and revokes the whole chain when a rotated-out token comes back: one
/// refresh at a time across processes, the others adopting the stored result (DESIGN invariant 1).
///
/// Part of the serialized django-oauth-toolkit suite: the provider is shared, and its other tests
/// rotate the signing key, which would change what these processes verify while they run.
extension DjangoOAuthToolkitTests {
    static let crossProcessCount = 4
    static let refreshesPerProcess = 100

    @Test func processesSharingAStoreNeverSpendARefreshTokenTwice() async throws {
        let environment = try #require(ProviderEnvironment.djangoOAuthToolkit)
        let harness = try await IntegrationHarness.make(environment, user: "cross")
        defer { harness.cleanUp() }
        try await harness.makeSession().signIn()
        let before = try #require(try await harness.storedSession())

        var arguments = [
            "refresh-loop", "--store", harness.directory.path, "--issuer", environment.issuer, "--client-id", environment.clientID,
            "--redirect-uri", environment.redirectURI.absoluteString, "--count", "\(Self.refreshesPerProcess)",
        ]
        if let revocation = environment.revocationEndpoint {
            arguments += ["--revocation-endpoint", revocation.absoluteString]
        }
        let started = ContinuousClock.now
        let children = try (0..<Self.crossProcessCount).map { _ in try CrashToolRun.start(arguments) }
        var runs: [CrashToolRun] = []
        for child in children { runs.append(await child.value) }
        let elapsed = ContinuousClock.now - started

        for (index, run) in runs.enumerated() {
            #expect(run.succeeded, "process \(index) \(run.report)")
            #expect(run.lines.first == "restored active", "process \(index)")
            #expect(run.lines.filter { $0.hasPrefix("ok ") }.count == Self.refreshesPerProcess, "process \(index)")
            #expect(run.count("ok") == Self.refreshesPerProcess, "process \(index)")
            #expect(run.count("errors") == 0, "process \(index): \(Self.distinctErrors(run.lines))")
            #expect(run.count("invalid_grant") == 0, "process \(index)")
        }
        let tokenRequests = runs.reduce(0) { $0 + max($1.count("token_requests"), 0) }
        let adopted = runs.reduce(0) { $0 + max($1.count("adopted"), 0) }
        let invalidGrants = runs.reduce(0) { $0 + max($1.count("invalid_grant"), 0) }

        // Every token request's result was stored: none was lost or overwritten by an older one.
        let after = try #require(try await harness.storedSession())
        #expect(after.rotation == before.rotation + UInt64(tokenRequests))
        #expect(after.pendingRefreshToken == nil)
        #expect(after.refreshToken != before.refreshToken)

        // The chain was never revoked: a new process refreshes with what the store holds.
        let relaunched = harness.makeSession()
        #expect(try await relaunched.restore() == .active)
        let token = try await relaunched.refresh()
        #expect(try await harness.userInfoStatus(token.secret) == 200)

        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "cross-process: \(Self.crossProcessCount) processes × \(Self.refreshesPerProcess) refreshes, \(tokenRequests) token requests "
                + "(\(runs.reduce(0) { $0 + max($1.count("restore_requests"), 0) }) of them restores), \(adopted) refreshes adopted "
                + "another process's result, \(invalidGrants) invalid_grant in \(String(format: "%.1f", seconds)) s")
    }

    /// Each distinct error line once, in order of first appearance.
    static func distinctErrors(_ lines: [String]) -> [String] {
        var seen: [String] = []
        for line in lines where line.hasPrefix("error") && !seen.contains(line) { seen.append(line) }
        return seen
    }
}
