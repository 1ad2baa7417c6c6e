import Foundation
import SessionKitJOSE

extension IDTokenCommand {
    /// Runs the command. Never includes the token, its signature or the access token in output.
    func run(in environment: CommandEnvironment) -> CommandOutput {
        switch mode {
        case .help:
            return CommandOutput(standardOutput: Self.usage + "\n", standardError: "", status: 0)
        case .subcommandHelp(let name):
            return CommandOutput(standardOutput: (Self.subcommandUsages[name] ?? Self.usage) + "\n", standardError: "", status: 0)
        case .verify(let options):
            return withInputs(jwksPath: options.jwksPath, token: options.token, environment) { token, keys in
                let expecting = IDTokenExpectations(
                    issuer: options.issuer, clientID: options.clientID, nonce: options.nonce,
                    accessToken: options.accessToken, skew: options.skew, allowMissingKeyID: options.allowMissingKeyID)
                let now = options.now.map { Date(timeIntervalSince1970: $0) } ?? environment.now()
                do throws(IDTokenError) {
                    let verified = try IDTokenValidator.validate(token, keys: keys, expecting: expecting, now: now)
                    return Self.verdict(valid: true, fields: [("sub", verified.claims.subject)])
                } catch {
                    return Self.verdict(valid: false, fields: [("error", error.code)])
                }
            }
        case .verifySignature(let options):
            return withInputs(jwksPath: options.jwksPath, token: options.token, environment) { token, keys in
                do throws(IDTokenError) {
                    _ = try CompactJWS.verifyRS256(token, keys: keys, allowMissingKeyID: options.allowMissingKeyID)
                    return Self.verdict(valid: true, fields: [])
                } catch {
                    return Self.verdict(valid: false, fields: [("error", error.code)])
                }
            }
        case .decode(let source):
            let token: String
            do {
                token = try Self.readToken(source, environment)
            } catch {
                return Self.failure(error)
            }
            let note = "idtoken: NOT VERIFIED — decode checks nothing; use `idtoken verify` to validate.\n"
            guard let jws = try? CompactJWS.decode(token) else {
                return CommandOutput(
                    standardOutput: #"{"verified":false,"error":"malformed"}"# + "\n", standardError: note, status: 1)
            }
            let claims = (try? jws.payloadJSON()) ?? "null"
            return CommandOutput(
                standardOutput: #"{"verified":false,"header":"# + jws.headerJSON + #","claims":"# + claims + "}\n",
                standardError: note, status: 0)
        }
    }

    private func withInputs(
        jwksPath: String, token source: TokenSource, _ environment: CommandEnvironment,
        _ body: (String, JWKS) -> CommandOutput
    ) -> CommandOutput {
        let keys: JWKS
        let token: String
        do {
            keys = try Self.readKeys(jwksPath, environment)
            token = try Self.readToken(source, environment)
        } catch {
            return Self.failure(error)
        }
        return body(token, keys)
    }

    /// A failure to read input: exit status 2 and a message that names no secret.
    struct InputError: Error {
        let message: String
    }

    private static func failure(_ error: InputError) -> CommandOutput {
        CommandOutput(standardOutput: "", standardError: "idtoken: \(error.message)\n", status: 2)
    }

    private static func readKeys(_ path: String, _ environment: CommandEnvironment) throws(InputError) -> JWKS {
        let bytes: [UInt8]
        do {
            bytes = try environment.readFile(path)
        } catch {
            throw InputError(message: "cannot read JWKS file \(path)")
        }
        do {
            return try JWKS(jsonData: bytes)
        } catch {
            throw InputError(message: "JWKS file \(path) is not a valid key set (\(error))")
        }
    }

    private static func readToken(_ source: TokenSource, _ environment: CommandEnvironment) throws(InputError)
        -> String
    {
        switch source {
        case .argument(let token):
            return token
        case .standardInput:
            let bytes: [UInt8]
            do {
                bytes = try environment.readStandardInput()
            } catch {
                throw InputError(message: "cannot read the token from standard input")
            }
            // A pasted or piped token usually ends in a newline; nothing else is trimmed. What is
            // left may be empty: that is a token too, and judged like any other (`malformed`).
            var text = String(decoding: bytes, as: UTF8.self)
            while let last = text.last, last.isWhitespace {
                text.removeLast()
            }
            return text
        }
    }

    private static func verdict(valid: Bool, fields: [(String, String)]) -> CommandOutput {
        var line = #"{"valid":"# + (valid ? "true" : "false")
        for (name, value) in fields {
            line += "," + JSONWriter.quoted(name) + ":" + JSONWriter.quoted(value)
        }
        return CommandOutput(standardOutput: line + "}\n", standardError: "", status: valid ? 0 : 1)
    }
}
