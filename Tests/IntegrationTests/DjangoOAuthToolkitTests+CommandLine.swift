import Foundation
import SessionKit
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The README's real-provider command lines, run as the built `walkthrough` against
/// django-oauth-toolkit; the test plays the browser the way the README's `curl` line does.
extension DjangoOAuthToolkitTests {
    @Test func theReadmesLoopbackWalkthroughSignsInRefreshesAndRevokes() async throws {
        try await Self.loopbackWalkthrough(try #require(ProviderEnvironment.djangoOAuthToolkit), port: nil)
    }

    @Test func theWalkthroughListensOnAFixedLoopbackPortWhenAsked() async throws {
        try await Self.loopbackWalkthrough(try #require(ProviderEnvironment.djangoOAuthToolkit), port: try Self.freePort())
    }

    @Test func theWalkthroughAuthenticatesAConfidentialClientWithASecretFromAFile() async throws {
        var environment = try #require(ProviderEnvironment.djangoOAuthToolkit)
        let confidential = try #require(environment.confidentialClient)
        environment.clientID = confidential.id
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-secret-\(UUID().uuidString)")
        try Data((confidential.secret.value + "\n").utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await Self.loopbackWalkthrough(
            environment, port: nil, extraArguments: ["--client-auth", "client_secret_basic", "--client-secret-file", file.path],
            secret: confidential.secret.value)
    }

    static func loopbackWalkthrough(
        _ environment: ProviderEnvironment, port: UInt16?, extraArguments: [String] = [], secret: String? = nil,
        expecting expected: [String] = []
    ) async throws {
        var arguments = [
            "--issuer", environment.issuer, "--client-id", environment.clientID, "--redirect-uri", "http://127.0.0.1/callback",
            "--revocation-endpoint", try #require(environment.revocationEndpoint).absoluteString,
        ]
        if let port { arguments += ["--loopback-port", String(port)] }
        arguments += extraArguments
        let run = try WalkthroughRun.start(arguments)
        let printed = try #require(await run.line(startingWith: environment.issuer), "the walkthrough printed no authorization URL")
        let url = try #require(URL(string: printed))
        let redirect = try #require(
            URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "redirect_uri" }?.value
                .flatMap(URL.init(string:)))
        if let port { #expect(redirect.port == Int(port), "the fixed port is the redirect URI's") }

        // `curl -sL -H "$SESSIONKIT_DOT_USER_HEADER: alice" "<the printed URL>"`
        let transport = URLSessionTransport(clock: ContinuousClock(), deadline: .seconds(20))
        let user = "cli-\(UUID().uuidString.prefix(8).lowercased())"
        let callback = try await LocalProviderPresenter(environment: environment, user: user, transport: transport).authorize(url)
        let page = try await transport.send(HTTPRequest(method: "GET", url: callback))
        #expect(page.status == 200)

        let finished = await run.finishedWithErrors()
        let shown = "stdout:\n\(finished.lines.joined(separator: "\n"))\nstderr:\n\(finished.errors)"
        #expect(finished.status == 0, "\(shown)")
        #expect(finished.lines.contains { $0.contains("signed in as") }, "\(shown)")
        #expect(finished.lines.contains { $0.contains("the provider confirmed the revocation of the refresh token") }, "\(shown)")
        if let secret { #expect(!shown.contains(secret), "the walkthrough printed the client secret") }
        for line in expected { #expect(finished.lines.contains { $0.contains(line) }, "\(shown)") }
    }

    /// A port nothing listens on right now.
    static func freePort() throws -> UInt16 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else { throw CommandRun.LaunchError.notFound("a free port") }
        return UInt16(bigEndian: address.sin_port)
    }
}
