import Foundation
import SessionKitJOSE
import Testing

@testable import idtoken

/// The `idtoken` CLI contract: one JSON line, exit 0/1/2, never the token on any stream.
@Suite struct IDTokenCommandTests {
    let factory: TokenFactory
    let jwks: [UInt8]
    let token: String

    init() throws {
        factory = try IDTokenValidatorTests.factory()
        jwks = try ValidatorCase.providerKeys(factory).jsonData()
        token = try factory.token(claims: factory.standardClaims())
    }

    private func environment(stdin: String = "") -> CommandEnvironment {
        let jwks = self.jwks
        return CommandEnvironment(
            readFile: { path in
                guard path == "keys.json" else { throw CocoaError(.fileNoSuchFile) }
                return jwks
            },
            readStandardInput: { Array(stdin.utf8) },
            now: { IDTokenValidatorTests.now })
    }

    private func run(_ arguments: [String], stdin: String = "") throws -> CommandOutput {
        let output = try IDTokenCommand.parse(arguments).run(in: environment(stdin: stdin))
        // Whatever happened, neither the token nor its signature may appear.
        let signature = String(token.split(separator: ".")[2])
        for text in [output.standardOutput, output.standardError] {
            #expect(!text.contains(token))
            #expect(!text.contains(signature))
            #expect(!text.contains(TokenFactory.accessToken))
        }
        return output
    }

    private func verifyArguments(_ extra: [String] = [], token: String? = nil) -> [String] {
        ["verify", "--jwks", "keys.json", "--issuer", TokenFactory.issuer, "--client-id", TokenFactory.clientID]
            + extra + [token ?? self.token]
    }

    @Test func verifyValidToken() throws {
        let output = try run(verifyArguments(["--nonce", TokenFactory.nonce, "--access-token", TokenFactory.accessToken]))
        #expect(output == CommandOutput(standardOutput: #"{"valid":true,"sub":"user-1"}"# + "\n", standardError: "", status: 0))
    }

    @Test func verifyReadsTheTokenFromStandardInput() throws {
        let output = try run(verifyArguments(token: "-"), stdin: token + "\r\n")
        #expect(output.standardOutput == #"{"valid":true,"sub":"user-1"}"# + "\n")
        #expect(output.status == 0)
    }

    @Test func verifyReportsTheCode() throws {
        let wrongNonce = try run(verifyArguments(["--nonce", "other"]))
        #expect(
            wrongNonce == CommandOutput(standardOutput: #"{"valid":false,"error":"nonce_mismatch"}"# + "\n", standardError: "", status: 1))
        let wrongClient = try run(["verify", "--jwks", "keys.json", "--issuer", TokenFactory.issuer, "--client-id", "x", token])
        #expect(wrongClient.standardOutput == #"{"valid":false,"error":"aud_mismatch"}"# + "\n")
        let expired = try run(verifyArguments(["--now", "1800003700"]))
        #expect(expired.standardOutput == #"{"valid":false,"error":"expired"}"# + "\n")
        #expect(expired.status == 1)
        let withinSkew = try run(verifyArguments(["--now", "1800003700", "--skew", "200"]))
        #expect(withinSkew.status == 0)
        let garbage = try run(verifyArguments(token: "not.a.token"))
        #expect(garbage.standardOutput == #"{"valid":false,"error":"malformed"}"# + "\n")
    }

    @Test func verifyUsesTheEnvironmentClockWithoutNow() throws {
        let late = CommandEnvironment(
            readFile: { _ in jwks }, readStandardInput: { [] },
            now: { IDTokenValidatorTests.now.addingTimeInterval(7200) })
        let output = try IDTokenCommand.parse(verifyArguments()).run(in: late)
        #expect(output.standardOutput == #"{"valid":false,"error":"expired"}"# + "\n")
    }

    @Test func missingKeyIDPolicySwitch() throws {
        let keyless = try factory.token(claims: factory.standardClaims(), keyID: nil)
        let oneKey = JWKS(keys: [factory.key.publicJWK(keyID: "k1")]).jsonData()
        let environment = CommandEnvironment(readFile: { _ in oneKey }, readStandardInput: { [] }, now: { IDTokenValidatorTests.now })
        let strict = try IDTokenCommand.parse(verifyArguments(token: keyless)).run(in: environment)
        #expect(strict.standardOutput == #"{"valid":false,"error":"missing_kid"}"# + "\n")
        let relaxed = try IDTokenCommand.parse(verifyArguments(["--allow-missing-kid"], token: keyless)).run(in: environment)
        #expect(relaxed.standardOutput == #"{"valid":true,"sub":"user-1"}"# + "\n")
    }

    @Test func verifySignatureIgnoresClaims() throws {
        let expired = try factory.token(claims: ValidatorCase.claims(factory) { $0["exp"] = 1 })
        let output = try IDTokenCommand.parse(["verify-signature", "--jwks", "keys.json", expired]).run(in: environment())
        #expect(output == CommandOutput(standardOutput: #"{"valid":true}"# + "\n", standardError: "", status: 0))
        let forged = try factory.token(claims: factory.standardClaims(), signer: try TestKeys.required(TestKeys.attacker))
        let bad = try IDTokenCommand.parse(["verify-signature", "--jwks", "keys.json", forged]).run(in: environment())
        #expect(bad == CommandOutput(standardOutput: #"{"valid":false,"error":"bad_signature"}"# + "\n", standardError: "", status: 1))
        let unknown = try factory.token(claims: factory.standardClaims(), keyID: "zz")
        let missing = try IDTokenCommand.parse(["verify-signature", "--jwks", "keys.json", unknown]).run(in: environment())
        #expect(missing.standardOutput == #"{"valid":false,"error":"unknown_kid"}"# + "\n")
    }

    @Test func decodeShowsHeaderAndClaimsButVerifiesNothing() throws {
        let forged = try factory.token(claims: ["sub": "a\"b", "exp": 1], signer: try TestKeys.required(TestKeys.attacker))
        let output = try IDTokenCommand.parse(["decode", forged]).run(in: environment())
        #expect(output.status == 0)
        #expect(
            output.standardOutput == #"{"verified":false,"header":{"alg":"RS256","typ":"JWT","kid":"k1"},"claims":{"exp":1,"sub":"a\"b"}}"#
                + "\n")
        #expect(output.standardError.contains("NOT VERIFIED"))
        let signature = String(forged.split(separator: ".")[2])
        #expect(!output.standardOutput.contains(signature))
        let broken = try run(["decode", "a.b"])
        #expect(broken.status == 1)
        #expect(broken.standardOutput == #"{"verified":false,"error":"malformed"}"# + "\n")
    }

    @Test func inputErrorsExitWithTwo() throws {
        let noFile = try run(["verify-signature", "--jwks", "missing.json", token])
        #expect(noFile.status == 2)
        #expect(noFile.standardOutput.isEmpty)
        #expect(noFile.standardError.contains("cannot read JWKS file missing.json"))
        let badKeys = CommandEnvironment(readFile: { _ in Array("{".utf8) }, readStandardInput: { [] }, now: { .distantPast })
        let invalid = try IDTokenCommand.parse(["verify-signature", "--jwks", "k", token]).run(in: badKeys)
        #expect(invalid.status == 2)
    }

    /// An empty token is a token that fails to parse: a `malformed` verdict, never a usage error,
    /// whether it comes as an argument or as empty standard input.
    @Test func anEmptyTokenIsMalformed() throws {
        let malformed = CommandOutput(standardOutput: #"{"valid":false,"error":"malformed"}"# + "\n", standardError: "", status: 1)
        #expect(try run(verifyArguments(token: "")) == malformed)
        #expect(try run(verifyArguments(token: "-"), stdin: "") == malformed)
        #expect(try run(verifyArguments(token: "-"), stdin: " \r\n") == malformed)
        #expect(try run(["verify-signature", "--jwks", "keys.json", "-"], stdin: "\n") == malformed)
        let decoded = try run(["decode", "-"], stdin: "\n")
        #expect(decoded.standardOutput == #"{"verified":false,"error":"malformed"}"# + "\n")
        #expect(decoded.status == 1)
    }

    @Test(arguments: [
        [],
        ["frobnicate"],
        ["verify"],
        ["verify", "--jwks", "k", "--issuer", "i", "tok"],
        ["verify", "--jwks", "k", "--client-id", "c", "tok"],
        ["verify", "--jwks", "k", "--issuer", "i", "--client-id", "c"],
        ["verify", "--jwks", "k", "--issuer", "i", "--client-id", "c", "--now", "soon", "tok"],
        ["verify", "--jwks", "k", "--issuer", "i", "--client-id", "c", "--skew", "-1", "tok"],
        ["verify", "--jwks", "k", "--issuer", "i", "--client-id", "c", "--nonce"],
        ["verify", "--jwks", "k", "--issuer", "i", "--client-id", "c", "tok", "secret-second-token"],
        ["verify-signature", "tok"],
        ["verify-signature", "--jwks", "k"],
        ["decode"],
        ["decode", "--access-token=secret-second-token", "tok"],
    ])
    func usageErrors(arguments: [String]) {
        let error = #expect(throws: IDTokenCommand.UsageError.self) { try IDTokenCommand.parse(arguments) }
        #expect(error?.message.isEmpty == false)
        #expect(error?.message.contains("secret-second-token") == false)
    }

    @Test func helpPrintsUsage() throws {
        let output = try IDTokenCommand.parse(["--help"]).run(in: environment())
        #expect(output.status == 0)
        #expect(output.standardOutput.contains("idtoken verify-signature"))
    }
}
