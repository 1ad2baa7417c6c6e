/// A parsed `idtoken` command line.
///
/// `idtoken` is for people debugging a sign-in, and its output is a stable contract for scripts:
/// one JSON line on stdout, exit status 0 (valid), 1 (invalid) or 2 (usage or I/O error, with a
/// message on stderr). It never prints the token, its signature, or an access token.
struct IDTokenCommand: Equatable {
    /// Where the token comes from: an argument, or `-` for standard input.
    enum TokenSource: Equatable {
        case argument(String)
        case standardInput
    }

    /// Options of `verify`.
    struct VerifyOptions: Equatable {
        var jwksPath: String
        var issuer: String
        var clientID: String
        var nonce: String?
        var accessToken: String?
        var now: Double?
        var skew: Double = 60
        var allowMissingKeyID = false
        var token: TokenSource
    }

    /// Options of `verify-signature`.
    struct SignatureOptions: Equatable {
        var jwksPath: String
        var allowMissingKeyID = false
        var token: TokenSource
    }

    enum Mode: Equatable {
        case verify(VerifyOptions)
        case verifySignature(SignatureOptions)
        case decode(TokenSource)
        case help
        /// `idtoken SUBCOMMAND --help`: that subcommand's usage.
        case subcommandHelp(String)
    }

    /// A command line that cannot be run; the message never repeats argument values, which may be
    /// tokens.
    struct UsageError: Error, Equatable {
        let message: String
    }

    let mode: Mode

    static let usage = """
        usage: idtoken verify --jwks FILE --issuer ISS --client-id ID [--nonce N] [--access-token AT]
                              [--now UNIX] [--skew SECONDS] [--allow-missing-kid] TOKEN|-
               idtoken verify-signature --jwks FILE [--allow-missing-kid] TOKEN|-
               idtoken decode TOKEN|-
               idtoken [COMMAND] --help

        verify            checks signature and claims; prints {"valid":true,"sub":"…"} or
                          {"valid":false,"error":"<code>"}
        verify-signature  checks only alg, key selection and signature
        decode            prints header and claims WITHOUT verifying anything
        TOKEN is the compact id_token, or - to read it from standard input (keeps it out of the
        shell's history and the process list).

        example: idtoken verify --jwks jwks.json --issuer https://id.example.com --client-id my-app - < id_token.txt

        exit status: 0 valid, 1 invalid, 2 usage or I/O error
        """

    /// The subcommands, each with its own usage.
    static let subcommandUsages: [String: String] = [
        "verify": """
        usage: idtoken verify --jwks FILE --issuer ISS --client-id ID [--nonce N] [--access-token AT]
                              [--now UNIX] [--skew SECONDS] [--allow-missing-kid] TOKEN|-

        Checks the signature (RS256, the key chosen by kid from the JWKS file) and the claims: iss,
        aud against the client id, exp and iat with --skew seconds of leeway (default 60) at --now
        (default: the system clock), nonce when --nonce is given, at_hash when --access-token is
        given. Prints {"valid":true,"sub":"…"} or {"valid":false,"error":"<code>"}.

        example: idtoken verify --jwks jwks.json --issuer https://id.example.com --client-id my-app - < id_token.txt

        exit status: 0 valid, 1 invalid, 2 usage or I/O error
        """,
        "verify-signature": """
        usage: idtoken verify-signature --jwks FILE [--allow-missing-kid] TOKEN|-

        Checks only the algorithm, the key selection and the signature; no claim. Prints
        {"valid":true} or {"valid":false,"error":"<code>"}.

        example: idtoken verify-signature --jwks jwks.json - < id_token.txt

        exit status: 0 valid, 1 invalid, 2 usage or I/O error
        """,
        "decode": """
        usage: idtoken decode TOKEN|-

        Prints the header and the claims as JSON WITHOUT verifying anything (a warning says so on
        standard error).

        example: idtoken decode - < id_token.txt

        exit status: 0 decoded, 1 malformed, 2 usage or I/O error
        """,
    ]

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> IDTokenCommand {
        guard let subcommand = arguments.first else { throw UsageError(message: "missing command (verify, verify-signature or decode)") }
        if subcommandUsages[subcommand] != nil, arguments.dropFirst().contains(where: { $0 == "--help" || $0 == "-h" }) {
            return IDTokenCommand(mode: .subcommandHelp(subcommand))
        }
        var scanner = ArgumentScanner(arguments: Array(arguments.dropFirst()))
        switch subcommand {
        case "-h", "--help", "help":
            return IDTokenCommand(mode: .help)
        case "verify":
            var jwks: String?
            var issuer: String?
            var clientID: String?
            var nonce: String?
            var accessToken: String?
            var now: Double?
            var skew: Double = 60
            var allowMissingKeyID = false
            var token: TokenSource?
            while let argument = scanner.next() {
                switch argument {
                case "--jwks": jwks = try scanner.value(for: argument)
                case "--issuer": issuer = try scanner.value(for: argument)
                case "--client-id": clientID = try scanner.value(for: argument)
                case "--nonce": nonce = try scanner.value(for: argument)
                case "--access-token": accessToken = try scanner.value(for: argument)
                case "--now": now = try scanner.number(for: argument)
                case "--skew":
                    skew = try scanner.number(for: argument)
                    guard skew >= 0 else { throw UsageError(message: "--skew must not be negative") }
                case "--allow-missing-kid": allowMissingKeyID = true
                default: token = try tokenSource(argument, replacing: token)
                }
            }
            guard let jwks else { throw UsageError(message: "verify needs --jwks FILE") }
            guard let issuer else { throw UsageError(message: "verify needs --issuer ISS") }
            guard let clientID else { throw UsageError(message: "verify needs --client-id ID") }
            guard let token else { throw UsageError(message: "verify needs a token argument or -") }
            return IDTokenCommand(
                mode: .verify(
                    VerifyOptions(
                        jwksPath: jwks, issuer: issuer, clientID: clientID, nonce: nonce, accessToken: accessToken,
                        now: now, skew: skew, allowMissingKeyID: allowMissingKeyID, token: token)))
        case "verify-signature":
            var jwks: String?
            var allowMissingKeyID = false
            var token: TokenSource?
            while let argument = scanner.next() {
                switch argument {
                case "--jwks": jwks = try scanner.value(for: argument)
                case "--allow-missing-kid": allowMissingKeyID = true
                default: token = try tokenSource(argument, replacing: token)
                }
            }
            guard let jwks else { throw UsageError(message: "verify-signature needs --jwks FILE") }
            guard let token else { throw UsageError(message: "verify-signature needs a token argument or -") }
            return IDTokenCommand(
                mode: .verifySignature(SignatureOptions(jwksPath: jwks, allowMissingKeyID: allowMissingKeyID, token: token)))
        case "decode":
            var token: TokenSource?
            while let argument = scanner.next() {
                token = try tokenSource(argument, replacing: token)
            }
            guard let token else { throw UsageError(message: "decode needs a token argument or -") }
            return IDTokenCommand(mode: .decode(token))
        default:
            // A token given without a command must not be echoed; a mistyped command name is.
            let isName = subcommand.count <= 32 && subcommand.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
            let named = isName ? "unknown command \(subcommand)" : "unknown command (the first argument, not shown)"
            throw UsageError(message: "\(named); expected verify, verify-signature or decode")
        }
    }

    private static func tokenSource(_ argument: String, replacing existing: TokenSource?) throws(UsageError)
        -> TokenSource
    {
        if argument.hasPrefix("--") {
            // Only the name: `--access-token=…` must not echo its value.
            let name = argument.prefix { $0 != "=" }
            throw UsageError(message: "unknown option \(name)")
        }
        guard existing == nil else { throw UsageError(message: "more than one token argument") }
        return argument == "-" ? .standardInput : .argument(argument)
    }
}

/// Walks the arguments of one subcommand.
private struct ArgumentScanner {
    let arguments: [String]
    var index = 0

    mutating func next() -> String? {
        guard index < arguments.count else { return nil }
        defer { index += 1 }
        return arguments[index]
    }

    mutating func value(for option: String) throws(IDTokenCommand.UsageError) -> String {
        guard let value = next() else { throw .init(message: "\(option) needs a value") }
        return value
    }

    mutating func number(for option: String) throws(IDTokenCommand.UsageError) -> Double {
        guard let number = Double(try value(for: option)), number.isFinite else {
            throw .init(message: "\(option) needs a number")
        }
        return number
    }
}
