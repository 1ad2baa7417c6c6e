import Foundation
import SessionKit
import Testing

/// The command lines the README documents, run as the built executables in child processes: exit
/// status, which stream says what, and the shape of the output. No provider needed.
@Suite(.timeLimit(.minutes(10)))
struct CommandLineTests {
    static let scenarioNames = [
        "happy-path", "concurrent-refresh", "account-deletion", "provider-logout", "guest-then-sign-in", "dpop", "stolen-refresh-token",
    ]

    /// The no-argument run (every scenario) is the test script's determinism step; here two named ones.
    @Test func walkthroughRunsTheNamedScenariosInOrderAndSaysNothingOnStandardError() async throws {
        let run = try await CommandRun.run("walkthrough", ["happy-path", "restore"])

        #expect(run.status == 0, "\(run)")
        #expect(run.standardError.isEmpty, "\(run)")
        let headers = run.lines.filter { $0.hasPrefix("== ") }.map { String($0.dropFirst(3).prefix { $0 != ":" }) }
        #expect(headers == ["happy-path", "restore"])
        #expect(run.lines.contains { $0.hasPrefix("t=+") }, "the transitions are timed lines")
    }

    @Test func theDPoPScenariosTellTheSameStoryOnEveryRunAndShowNoCredential() async throws {
        let first = try await CommandRun.run("walkthrough", ["dpop", "stolen-refresh-token"])
        let second = try await CommandRun.run("walkthrough", ["dpop", "stolen-refresh-token"])

        #expect(first.status == 0 && first.standardError.isEmpty, "\(first)")
        #expect(first.standardOutput == second.standardOutput)
        #expect(first.lines.contains { $0.contains("one use_dpop_nonce retry") })
        #expect(first.lines.contains { $0.contains("presented without a proof: invalid_dpop_proof") })
        #expect(first.lines.contains { $0.contains("attacker's own key: dpop_use_nonce") })
        #expect(first.lines.contains { $0.contains("sent once more with the provider's nonce: invalid_grant") })
        // No JWS (a proof, a token) and no long opaque value is printed.
        #expect(!first.standardOutput.contains("eyJ"))
        #expect(
            !first.lines.contains {
                // A random base64url value of 22 characters or more has capitals or digits; an
                // error code (lower-case words joined by `_`) does not.
                $0.split(separator: " ").contains {
                    $0.count >= 22 && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
                        && $0.contains { $0.isUppercase || $0.isNumber }
                }
            })
    }

    @Test func theGuestScenarioTellsTheSameStoryOnEveryRun() async throws {
        let first = try await CommandRun.run("walkthrough", ["guest-then-sign-in"])
        let second = try await CommandRun.run("walkthrough", ["guest-then-sign-in"])

        #expect(first.status == 0 && first.standardError.isEmpty, "\(first)")
        #expect(first.standardOutput == second.standardOutput)
        #expect(first.lines.contains { $0.contains("signedOut → verifying  (guest session requested") })
        #expect(first.lines.contains { $0.contains("guest key renewed; 20 callers served") })
        #expect(first.lines.contains { $0.contains("event: anonymous user alice promoted") })
        #expect(first.lines.contains { $0.contains("bootstrap requests in all: 2") })
    }

    @Test func walkthroughListsTheScenariosAsTextAndAsJSON() async throws {
        let text = try await CommandRun.run("walkthrough", ["--list"])
        let json = try await CommandRun.run("walkthrough", ["--list", "--json"])

        #expect(text.status == 0 && json.status == 0, "\(text)\n\(json)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [[String: String]], "\(json)")
        #expect(entries.count == text.lines.count)
        #expect(entries.map { $0["name"] ?? "" } == text.lines.map { String($0.prefix { $0 != " " }) })
        #expect(entries.allSatisfy { ($0["summary"] ?? "").isEmpty == false && $0.count == 2 })
        for name in Self.scenarioNames { #expect(entries.contains { $0["name"] == name }) }
    }

    @Test func walkthroughRunsOneNamedScenarioAsJSONLines() async throws {
        let run = try await CommandRun.run("walkthrough", ["happy-path", "--json"])

        #expect(run.status == 0, "\(run)")
        #expect(!run.lines.isEmpty)
        for line in run.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
            #expect(object["scenario"] as? String == "happy-path")
            #expect(object["t"] is Double || object["t"] is Int)
        }
    }

    @Test func walkthroughHelpGoesToStandardOutputWithTheScenariosTheRealProviderFlagsAndTheExitCodes() async throws {
        for flag in ["--help", "-h"] {
            let run = try await CommandRun.run("walkthrough", [flag])

            #expect(run.status == 0, "\(run)")
            #expect(run.standardError.isEmpty, "\(run)")
            #expect(run.standardOutput.hasPrefix("usage: walkthrough"))
            for name in Self.scenarioNames { #expect(run.standardOutput.contains("  \(name) "), "lists \(name)") }
            for option in [
                "--issuer URL", "--client-id ID", "--redirect-uri URI", "--loopback-port N", "--paste", "--device",
                "--device-authorization-endpoint URL", "--revocation-endpoint URL", "--list", "--json", "--diagram",
            ] {
                #expect(run.standardOutput.contains(option), "documents \(option)")
            }
            #expect(run.standardOutput.contains("RFC 8252 §7.3"))
            #expect(run.standardOutput.contains("Example:\n  walkthrough --issuer "))
            #expect(run.standardOutput.contains("Exit status:\n  0  "))
            #expect(run.standardOutput.contains("\n  1  ") && run.standardOutput.contains("\n  2  "))
        }
    }

    /// The scenario names `--help` prints: the first word of each line under `Scenarios:`.
    static func helpScenarioNames(_ help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        guard let heading = lines.firstIndex(of: "Scenarios:") else { return [] }
        return lines[(heading + 1)...].prefix { !$0.isEmpty }.map { String($0.drop { $0 == " " }.prefix { $0 != " " }) }
    }

    @Test func everyScenarioNameHelpPrintsIsWholeAndRuns() async throws {
        let help = try await CommandRun.run("walkthrough", ["--help"])
        let list = try await CommandRun.run("walkthrough", ["--list"])
        let names = Self.helpScenarioNames(help.standardOutput)

        #expect(names == list.lines.map { String($0.prefix { $0 != " " }) }, "--help names every scenario as --list does")
        #expect(names.contains("relaunch-mid-sign-out-offline"), "a name longer than the column, whole")
        let run = try await CommandRun.run("walkthrough", names)
        #expect(run.status == 0, "\(run)")
        #expect(run.standardError.isEmpty, "\(run)")
        let headers = run.lines.filter { $0.hasPrefix("== ") }.map { String($0.dropFirst(3).prefix { $0 != ":" }) }
        #expect(headers == names, "each name --help prints runs that scenario")
    }

    @Test(arguments: [
        (["nope"], "unknown scenario 'nope'"),
        (["happy-path", "nope", "nada"], "unknown scenarios 'nope', 'nada'"),
        (["--frobnicate"], "unknown option --frobnicate"),
        (["--issuer"], "--issuer needs a value"),
        (["--issuer", "--client-id", "x"], "--issuer needs a value"),
        (["--issuer", "https://id.example.com"], "--issuer needs --client-id ID"),
        (["--issuer", "https://id.example.com", "--client-id", "c"], "--issuer needs --redirect-uri URI or --device"),
        (["--client-id", "c", "--device"], "needs --issuer URL"),
        (
            ["--issuer", "https://id.example.com", "--client-id", "c", "--redirect-uri", "http://127.0.0.1/cb", "--loopback-port", "0"],
            "--loopback-port needs a port number from 1 to 65535"
        ),
        (
            ["--issuer", "https://id.example.com", "--client-id", "c", "--redirect-uri", "com.example:/cb", "--loopback-port", "8080"],
            "--loopback-port needs a loopback --redirect-uri"
        ),
        (["--list", "happy-path"], "--list takes no scenario (got happy-path)"),
        (
            ["--issuer", "https://id.example.com", "--client-id", "c", "--redirect-uri", "http://127.0.0.1/cb", "--dpop", "always"],
            "--dpop takes auto or required"
        ),
        (
            [
                "--issuer", "https://id.example.com", "--client-id", "c", "--redirect-uri", "http://127.0.0.1/cb", "--client-auth",
                "private_key_jwt",
            ],
            "--client-auth private_key_jwt needs --client-key-file PATH"
        ),
        (
            [
                "--issuer", "https://id.example.com", "--client-id", "c", "--redirect-uri", "http://127.0.0.1/cb", "--client-key-file",
                "k.pem",
            ],
            "--client-key-file needs --client-auth private_key_jwt"
        ),
        (
            [
                "--issuer", "https://id.example.com", "--client-id", "c", "--redirect-uri", "http://127.0.0.1/cb", "--client-auth",
                "private_key_jwt", "--client-key-file", "/nonexistent/key.pem",
            ],
            "--client-key-file cannot be read"
        ),
        (
            [
                "--issuer", "https://id.example.com", "--client-id", "c", "--redirect-uri", "http://127.0.0.1/cb", "--client-auth",
                "private_key_jwt", "--client-key-file", "/etc/passwd",
            ],
            "--client-key-file: not PEM text"
        ),
    ])
    func walkthroughErrorsNameTheArgumentAndPointToHelp(arguments: [String], message: String) async throws {
        let run = try await CommandRun.run("walkthrough", arguments)

        #expect(run.status == 2, "\(run)")
        #expect(run.standardOutput.isEmpty, "\(run)")
        #expect(run.standardError.hasPrefix("walkthrough: "), "\(run)")
        #expect(run.standardError.contains(message), "\(run)")
        #expect(run.standardError.contains("walkthrough --help"), "\(run)")
    }

    @Test func walkthroughWritesTheDiagramsIntoTheDirectoryGiven() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sessionkit-diagrams-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }

        let run = try await CommandRun.run("walkthrough", ["--diagram", directory.path])

        #expect(run.status == 0, "\(run)")
        let mermaid = try String(contentsOf: directory.appendingPathComponent("stages.mmd"), encoding: .utf8)
        #expect(mermaid.contains("signedOut"))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("stages.dot").path))
    }

    @Test func idtokenHelpAndEachSubcommandsHelpGoToStandardOutput() async throws {
        let top = try await CommandRun.run("idtoken", ["--help"])
        #expect(top.status == 0 && top.standardError.isEmpty, "\(top)")
        #expect(top.standardOutput.contains("exit status: 0 valid, 1 invalid, 2 usage or I/O error"))
        #expect(top.standardOutput.contains("example: idtoken verify "))
        for subcommand in ["verify", "verify-signature", "decode"] {
            for flag in ["--help", "-h"] {
                let run = try await CommandRun.run("idtoken", [subcommand, flag])
                #expect(run.status == 0, "\(run)")
                #expect(run.standardError.isEmpty, "\(run)")
                #expect(run.standardOutput.hasPrefix("usage: idtoken \(subcommand) "), "\(run)")
                #expect(run.standardOutput.contains("exit status: "))
            }
        }
    }

    @Test(arguments: [
        ([], "missing command"),
        (["frobnicate"], "unknown command frobnicate"),
        (["eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln"], "unknown command (the first argument, not shown)"),
        (["verify", "--jwks", "k.json", "--issuer", "https://id.example.com", "tok"], "verify needs --client-id ID"),
        (["decode", "--bogus", "tok"], "unknown option --bogus"),
    ])
    func idtokenErrorsNameTheArgumentAndPointToHelp(arguments: [String], message: String) async throws {
        let run = try await CommandRun.run("idtoken", arguments)

        #expect(run.status == 2, "\(run)")
        #expect(run.standardOutput.isEmpty, "\(run)")
        #expect(run.standardError.contains("idtoken: \(message)"), "\(run)")
        #expect(run.standardError.contains("idtoken --help"), "\(run)")
        #expect(!run.standardError.contains("eyJ"), "a token is never echoed")
    }

    @Test func idtokenDecodeReadsStandardInputAndPrintsOneJSONLine() async throws {
        // Header {"alg":"RS256","kid":"k1"}, claims {"sub":"user-1"}; decode verifies nothing.
        let token = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJ1c2VyLTEifQ.c2lnbmF0dXJl"

        let run = try await CommandRun.run("idtoken", ["decode", "-"], input: token + "\n")

        #expect(run.status == 0, "\(run)")
        #expect(run.lines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any], "\(run)")
        #expect(object["verified"] as? Bool == false)
        #expect((object["claims"] as? [String: Any])?["sub"] as? String == "user-1")
        #expect(run.standardError.contains("NOT VERIFIED"))
        #expect(!run.standardOutput.contains("c2lnbmF0dXJl"), "the signature is never printed")
    }
}
