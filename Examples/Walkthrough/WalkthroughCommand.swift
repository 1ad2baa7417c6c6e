import Foundation
import SessionKit

/// A parsed `walkthrough` command line, or why it cannot run.
///
/// Every error names the argument or scenario at fault and points to `--help`; the help text goes
/// to standard output with exit status 0.
enum WalkthroughCommand {
    /// Run these scenarios (every one when empty) on the simulated provider.
    case scenarios([String], json: Bool)
    /// List the scenarios, as text or as one JSON document.
    case list(json: Bool)
    /// Write the stage diagrams into a directory.
    case diagram(directory: String)
    /// The happy path against a real provider.
    case realProvider(RealProviderWalkthrough.Options)
    /// Print the help text.
    case help

    /// A command line that cannot run. The message names the argument, never a value that could
    /// be a secret (the walkthrough takes none).
    struct UsageError: Error, Equatable {
        var message: String
    }

    /// Exit status of a usage error.
    static let usageStatus: Int32 = 2

    private static let valueOptions: Set<String> = [
        "--issuer", "--client-id", "--redirect-uri", "--revocation-endpoint", "--device-authorization-endpoint", "--loopback-port",
        "--client-auth", "--client-secret-file", "--client-key-file", "--client-key-id", "--dpop",
    ]

    /// The environment variable a client secret is read from when no `--client-secret-file` is
    /// given: a secret never goes on the command line, where other users' `ps` can see it.
    static let clientSecretVariable = "SESSIONKIT_CLIENT_SECRET"
    private static let realProviderFlags: Set<String> = ["--paste", "--device"]

    /// Parses the arguments after the program name; `scenarioNames` are the known scenarios.
    static func parse(
        _ arguments: [String], scenarioNames: [String], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(UsageError) -> WalkthroughCommand {
        if arguments.contains("--help") || arguments.contains("-h") { return .help }
        var json = false
        var list = false
        var diagram: String?
        var flags: Set<String> = []
        var values: [String: String] = [:]
        var names: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            switch argument {
            case "--json": json = true
            case "--list": list = true
            case "--diagram":
                // The directory is optional; the next argument is it unless it is an option.
                if index < arguments.count, !arguments[index].hasPrefix("-") {
                    diagram = arguments[index]
                    index += 1
                } else {
                    diagram = "Diagrams"
                }
            case _ where realProviderFlags.contains(argument): flags.insert(argument)
            case _ where valueOptions.contains(argument):
                guard index < arguments.count, !arguments[index].hasPrefix("--") else {
                    throw UsageError(message: "\(argument) needs a value")
                }
                guard values.updateValue(arguments[index], forKey: argument) == nil else {
                    throw UsageError(message: "\(argument) is given more than once")
                }
                index += 1
            case _ where argument.hasPrefix("-"):
                throw UsageError(message: "unknown option \(argument.prefix { $0 != "=" })")
            default:
                names.append(argument)
            }
        }
        let realProvider = !values.isEmpty || !flags.isEmpty
        if list || diagram != nil {
            let mode = list ? "--list" : "--diagram"
            if list, diagram != nil { throw UsageError(message: "--list and --diagram cannot be combined") }
            if let name = names.first { throw UsageError(message: "\(mode) takes no scenario (got \(name))") }
            if realProvider { throw UsageError(message: "\(mode) cannot be combined with \(firstRealProviderArgument(arguments))") }
            return list ? .list(json: json) : .diagram(directory: diagram ?? "Diagrams")
        }
        if realProvider {
            if let name = names.first { throw UsageError(message: "unexpected argument \(name) with --issuer") }
            var options = try realProviderOptions(values, flags: flags, json: json)
            options.clientAuthentication = try clientAuthentication(values, environment: environment)
            return .realProvider(options)
        }
        let unknown = names.filter { !scenarioNames.contains($0) }
        if !unknown.isEmpty {
            let list = unknown.map { "'\($0)'" }.joined(separator: ", ")
            throw UsageError(message: "unknown scenario\(unknown.count > 1 ? "s" : "") \(list) (walkthrough --list shows them)")
        }
        return .scenarios(names, json: json)
    }

    /// `--client-auth METHOD` with its secret from `--client-secret-file PATH` or
    /// ``clientSecretVariable``, or (`private_key_jwt`) its private key from `--client-key-file PATH`
    /// with the key's `kid` from `--client-key-id`; `none` (a public client) when not given.
    private static func clientAuthentication(
        _ values: [String: String], environment: [String: String]
    ) throws(UsageError) -> ClientAuthentication {
        let method = values["--client-auth"] ?? "none"
        if method != "private_key_jwt" {
            for option in ["--client-key-file", "--client-key-id"] where values[option] != nil {
                throw UsageError(message: "\(option) needs --client-auth private_key_jwt")
            }
        }
        if method == "none" {
            if values["--client-secret-file"] != nil { throw UsageError(message: "--client-secret-file needs --client-auth") }
            return .none
        }
        if method == "private_key_jwt" { return try privateKeyJWT(values) }
        guard method == "client_secret_basic" || method == "client_secret_post" else {
            throw UsageError(message: "--client-auth takes none, client_secret_basic, client_secret_post or private_key_jwt")
        }
        let text: String
        if let path = values["--client-secret-file"] {
            guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw UsageError(message: "--client-secret-file cannot be read")
            }
            text = contents
        } else if let value = environment[clientSecretVariable] {
            text = value
        } else {
            throw UsageError(message: "--client-auth \(method) needs --client-secret-file PATH or \(clientSecretVariable) set")
        }
        // A file written by an editor ends with a line break that is no part of the secret.
        let secret = Secret(text.hasSuffix("\n") ? String(text.dropLast()) : text)
        guard !secret.value.isEmpty else { throw UsageError(message: "the client secret is empty") }
        return method == "client_secret_basic" ? .clientSecretBasic(secret) : .clientSecretPost(secret)
    }

    /// `private_key_jwt` with the PEM key of `--client-key-file` (RS256 for RSA, ES256 for P-256).
    /// A key never comes from the command line or the environment; the messages name the file's
    /// problem, never its contents.
    private static func privateKeyJWT(_ values: [String: String]) throws(UsageError) -> ClientAuthentication {
        if values["--client-secret-file"] != nil {
            throw UsageError(message: "--client-auth private_key_jwt takes --client-key-file, not --client-secret-file")
        }
        guard let path = values["--client-key-file"] else {
            throw UsageError(message: "--client-auth private_key_jwt needs --client-key-file PATH (a PEM private key)")
        }
        guard let contents = FileManager.default.contents(atPath: path) else {
            throw UsageError(message: "--client-key-file cannot be read")
        }
        do {
            return .privateKeyJWT(try ClientAssertionKey(pemBytes: [UInt8](contents), keyID: values["--client-key-id"]))
        } catch {
            throw UsageError(message: "--client-key-file: \(error)")
        }
    }

    private static func firstRealProviderArgument(_ arguments: [String]) -> String {
        arguments.first { valueOptions.contains($0) || realProviderFlags.contains($0) } ?? "--issuer"
    }

    private static func realProviderOptions(
        _ values: [String: String], flags: Set<String>, json: Bool
    ) throws(UsageError) -> RealProviderWalkthrough.Options {
        guard let issuer = values["--issuer"] else {
            throw UsageError(message: "\(firstRealProviderArgument(Array(values.keys.sorted()) + flags.sorted())) needs --issuer URL")
        }
        guard let issuerURL = URL(string: issuer), issuerURL.scheme != nil, issuerURL.host != nil else {
            throw UsageError(message: "--issuer needs an absolute URL")
        }
        guard let clientID = values["--client-id"] else { throw UsageError(message: "--issuer needs --client-id ID") }
        let device = flags.contains("--device")
        let paste = flags.contains("--paste")
        let redirect = try values["--redirect-uri"].map { (text: String) throws(UsageError) -> URL in
            guard let url = URL(string: text), url.scheme != nil else { throw UsageError(message: "--redirect-uri needs an absolute URI") }
            return url
        }
        if device, redirect != nil { throw UsageError(message: "--device signs in without a redirect: drop --redirect-uri") }
        if device, paste { throw UsageError(message: "--paste needs --redirect-uri, not --device") }
        if !device, redirect == nil { throw UsageError(message: "--issuer needs --redirect-uri URI or --device") }
        if !device, values["--device-authorization-endpoint"] != nil {
            throw UsageError(message: "--device-authorization-endpoint needs --device")
        }
        var port: UInt16?
        if let text = values["--loopback-port"] {
            guard let number = UInt16(text), number > 0 else {
                throw UsageError(message: "--loopback-port needs a port number from 1 to 65535")
            }
            guard !device, !paste, let redirect, LoopbackPresenter.canServe(redirect) else {
                throw UsageError(
                    message: "--loopback-port needs a loopback --redirect-uri (http://127.0.0.1/…), without --paste or --device")
            }
            port = number
        }
        let endpoints = try ["--revocation-endpoint", "--device-authorization-endpoint"].map { (name: String) throws(UsageError) -> URL? in
            guard let text = values[name] else { return nil }
            guard let url = URL(string: text), url.scheme != nil, url.host != nil else {
                throw UsageError(message: "\(name) needs an absolute URL")
            }
            return url
        }
        let dpop: DPoPPolicy
        switch values["--dpop"] {
        case nil: dpop = .off
        case "auto": dpop = .whenSupported
        case "required": dpop = .required
        default: throw UsageError(message: "--dpop takes auto or required")
        }
        return RealProviderWalkthrough.Options(
            issuer: issuer, clientID: clientID, redirectURI: redirect, revocationEndpoint: endpoints[0], json: json, paste: paste,
            device: device, deviceAuthorizationEndpoint: endpoints[1], loopbackPort: port, dpop: dpop)
    }

    /// One line per scenario: its whole name (a name is what the command line takes), then its
    /// summary, in a column after the longest name.
    static func scenarioLines(_ scenarios: [(name: String, summary: String)], indent: String = "") -> [String] {
        let width = max(20, scenarios.map(\.name.count).max() ?? 0)
        return scenarios.map { "\(indent)\($0.name.padding(toLength: width, withPad: " ", startingAt: 0)) \($0.summary)" }
    }

    /// The text of `--help`.
    static func help(scenarios: [(name: String, summary: String)]) -> String {
        let list = scenarioLines(scenarios, indent: "  ").joined(separator: "\n")
        return """
            usage: walkthrough [--json] [SCENARIO…]
                   walkthrough --list [--json]
                   walkthrough --diagram [DIR]
                   walkthrough --issuer URL --client-id ID --redirect-uri URI [--loopback-port N | --paste]
                               [--revocation-endpoint URL] [--dpop auto|required] [--json]
                   walkthrough --issuer URL --client-id ID --device [--device-authorization-endpoint URL]
                               [--revocation-endpoint URL] [--dpop auto|required] [--json]
                   walkthrough --help

            Runs SessionKit's lifecycle scenarios on the embedded simulated provider, in simulated
            time (every scenario when none is named); the output is the same from run to run.
              --json       one JSON object per line (with --list: one JSON array)
              --list       list the scenarios
              --diagram    write stages.mmd and stages.dot into DIR (default Diagrams)

            Scenarios:
            \(list)

            Against a real OpenID provider, in real time: sign in, refresh, and a server-first sign-out.
              --issuer URL                         the provider's issuer (OpenID discovery)
              --client-id ID                       a client registered there (public unless --client-auth)
              --client-auth METHOD                 none (default), client_secret_basic, client_secret_post
                                                   or private_key_jwt; the secret from --client-secret-file
                                                   PATH or the SESSIONKIT_CLIENT_SECRET environment
                                                   variable, never the command line
              --client-key-file PATH               private_key_jwt: the client's private key, PEM (PKCS #8,
                                                   RSA PRIVATE KEY or EC PRIVATE KEY; RS256 or ES256)
              --client-key-id KID                  the kid of the key's registered public half
              --redirect-uri URI                   a registered redirect URI; for http://127.0.0.1/… the
                                                   walkthrough catches the browser's redirect itself
              --loopback-port N                    listen on port N instead of one the system picks; for a
                                                   provider that matches the registered port exactly
                                                   (RFC 8252 §7.3 asks it to allow any port)
              --paste                              paste the URL the browser was redirected to instead
              --device                             sign in with a device code (RFC 8628) instead
              --device-authorization-endpoint URL  when discovery lists none
              --revocation-endpoint URL            where the refresh token is revoked (RFC 7009) when
                                                   discovery lists none; without one the run fails
              --dpop auto|required                 sender-constrain the tokens with DPoP (RFC 9449): a
                                                   fresh ES256 key for the run, a proof on every token,
                                                   revocation and UserInfo request; auto accepts a
                                                   provider that answers Bearer, required refuses it

            Example:
              walkthrough --issuer https://id.example.com --client-id my-cli \\
                  --redirect-uri http://127.0.0.1/callback --revocation-endpoint https://id.example.com/revoke

            Exit status:
              0  every scenario ran; against a provider, the provider confirmed the sign-out
              1  a scenario failed; against a provider, a step failed or the refresh token was not revoked
              2  the command line is wrong (the message names what, on standard error)
            """
    }
}
