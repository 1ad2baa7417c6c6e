import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

@Suite("Simulated provider: scripted faults", .timeLimit(.minutes(1)))
struct SimulatedProviderFaultTests {
    @Test func timeoutWaitsTheDeadlineOnTheClockAndLosesTheRequest() async throws {
        let fixture = try ProviderFixture(SimulatedProviderConfiguration(timeoutDeadline: .seconds(10)))
        let tokens = try await fixture.signIn()
        fixture.provider.script(.timeout, on: .token)
        let call = Task { () -> Result<HTTPResponse, TransportError> in
            do throws(TransportError) { return .success(try await fixture.refresh(tokens.refreshToken)) } catch { return .failure(error) }
        }
        await fixture.clock.waitForSleepers(count: 1)
        #expect(fixture.clock.nextDeadline == TestClock.Instant(offset: .seconds(10)))
        fixture.clock.advance(by: .seconds(10))
        #expect(await call.value == .failure(.timedOut))
        // The request never reached the grant logic: the presented token is still current.
        #expect(fixture.provider.isRefreshTokenActive(tokens.refreshToken))
        #expect(fixture.provider.requestLog.last?.status == nil)
        #expect(fixture.provider.requestLog.last?.fault == .timeout)
    }

    @Test func timeoutAfterProcessingRotatesButLosesTheAnswer() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn()
        fixture.provider.script(.timeoutAfterProcessing, on: .token)
        let call = Task { () -> Result<HTTPResponse, TransportError> in
            do throws(TransportError) { return .success(try await fixture.refresh(tokens.refreshToken)) } catch { return .failure(error) }
        }
        await fixture.clock.waitForSleepers(count: 1)
        fixture.clock.advance(by: .seconds(30))
        #expect(await call.value == .failure(.timedOut))
        #expect(!fixture.provider.isRefreshTokenActive(tokens.refreshToken))
        // Retrying with the token the client still holds is a reuse.
        #expect(ProviderFixture.errorCode(try await fixture.refresh(tokens.refreshToken)) == "invalid_grant")
        #expect(fixture.provider.revokedChains.map(\.reason) == [.refreshTokenReuse])
    }

    @Test func connectionFailureFailsAtOnce() async throws {
        let fixture = try ProviderFixture()
        fixture.provider.script(.connectionFailure, on: .jwks)
        await #expect(throws: TransportError.connectionFailed("simulated connection failure")) {
            try await fixture.get(.jwks)
        }
        #expect(try await fixture.get(.jwks).status == 200)
    }

    @Test func serverErrorsAndRateLimitsCarryRetryAfter() async throws {
        let fixture = try ProviderFixture()
        fixture.provider.script(.serverError(status: 503, retryAfterSeconds: 7), on: .revocation)
        fixture.provider.script(.rateLimited(retryAfterSeconds: 12), on: .revocation)
        fixture.provider.script(.serverError(), on: .revocation)
        let unavailable = try await fixture.revoke(Secret("x"))
        #expect(unavailable.status == 503)
        #expect(unavailable.header("Retry-After") == "7")
        let limited = try await fixture.revoke(Secret("x"))
        #expect(limited.status == 429)
        #expect(limited.header("Retry-After") == "12")
        let plain = try await fixture.revoke(Secret("x"))
        #expect(plain.status == 503)
        #expect(plain.header("Retry-After") == nil)
        #expect(try await fixture.revoke(Secret("x")).status == 200)
    }

    @Test func faultsLastForTheScriptedNumberOfCalls() async throws {
        let fixture = try ProviderFixture()
        fixture.provider.script(.serverError(status: 500), on: .discovery, times: 3)
        #expect(fixture.provider.pendingFaultCount(on: .discovery) == 3)
        var statuses: [Int] = []
        for _ in 0..<4 { statuses.append(try await fixture.get(.discovery).status) }
        #expect(statuses == [500, 500, 500, 200])
        #expect(fixture.provider.pendingFaultCount(on: .discovery) == 0)
        // Faults are per endpoint.
        fixture.provider.script(.notFound, on: .jwks)
        #expect(try await fixture.get(.discovery).status == 200)
        fixture.provider.clearScriptedFaults()
        #expect(try await fixture.get(.jwks).status == 200)
    }

    @Test func scriptedInvalidGrantLeavesTheGrantAlone() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn()
        fixture.provider.script(.invalidGrant, on: .token)
        let response = try await fixture.refresh(tokens.refreshToken)
        #expect(response.status == 400)
        #expect(ProviderFixture.errorCode(response) == "invalid_grant")
        #expect(fixture.provider.isRefreshTokenActive(tokens.refreshToken))
        #expect(fixture.provider.requestLog.last?.errorCode == "invalid_grant")
        #expect(fixture.provider.requestLog.last?.grantType == "refresh_token")
    }

    @Test func statusFaultsAnswer401403And404() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn()
        let body = try ProviderFixture.json(
            try await fixture.exchangeDeviceKey(accessToken: tokens.accessToken, body: ["device_uuid": "d", "platform": "ios"]))
        let deviceKey = try ProviderFixture.secret(body, "device_key")
        fixture.provider.script(.unauthorized, on: .disconnect)
        fixture.provider.script(.forbidden, on: .disconnect)
        fixture.provider.script(.notFound, on: .disconnect)
        let unauthorized = try await fixture.disconnect(deviceKey: deviceKey)
        #expect(unauthorized.status == 401)
        #expect(unauthorized.header("WWW-Authenticate") != nil)
        #expect(try await fixture.disconnect(deviceKey: deviceKey).status == 403)
        #expect(try await fixture.disconnect(deviceKey: deviceKey).status == 404)
        #expect(fixture.provider.isRefreshTokenActive(tokens.refreshToken))
        #expect(try await fixture.disconnect(deviceKey: deviceKey).status == 204)
    }

    @Test func malformedJSONIsATruncatedSuccess() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn().refreshToken
        fixture.provider.script(.malformedJSON, on: .token)
        let response = try await fixture.refresh(tokens)
        #expect(response.status == 200)
        #expect((try? JSONSerialization.jsonObject(with: response.body)) == nil)
    }

    @Test func slowResponsesArriveAfterTheDelayOnTheClock() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn()
        fixture.provider.script(.slow(.seconds(45)), on: .token)
        let call = Task { try await fixture.refresh(tokens.refreshToken) }
        await fixture.clock.waitForSleepers(count: 1)
        // Processed on arrival: the token rotated before the answer is delivered.
        #expect(!fixture.provider.isRefreshTokenActive(tokens.refreshToken))
        fixture.clock.advance(by: .seconds(44))
        #expect(fixture.clock.sleeperCount == 1)
        fixture.clock.advance(by: .seconds(1))
        let response = try await call.value
        #expect(response.status == 200)
        #expect(fixture.provider.isRefreshTokenActive(try ProviderFixture.tokens(response).refreshToken))
    }

    @Test func cancellingASlowCallFailsWithCancelled() async throws {
        let fixture = try ProviderFixture()
        fixture.provider.script(.slow(.seconds(5)), on: .discovery)
        let call = Task { () -> Result<HTTPResponse, TransportError> in
            do throws(TransportError) { return .success(try await fixture.get(.discovery)) } catch { return .failure(error) }
        }
        await fixture.clock.waitForSleepers(count: 1)
        call.cancel()
        #expect(await call.value == .failure(.cancelled))
    }

    @Test(arguments: [
        (SimulatedProviderFault.IDTokenTampering.badSignature, IDTokenError.badSignature),
        (.issuer("https://evil.test"), .issuerMismatch),
        (.audience("other-app"), .audienceMismatch),
        (.nonce("replayed"), .nonceMismatch),
        (.expired, .expired),
        (.keyID("sim-key-99"), .unknownKeyID),
    ])
    func tamperedSignInIDTokensAreRejected(tampering: SimulatedProviderFault.IDTokenTampering, expected: IDTokenError)
        async throws
    {
        let fixture = try ProviderFixture()
        fixture.provider.script(.tamperedIDToken(tampering), on: .token)
        let tokens = try await fixture.signIn()
        let keys = try await fixture.jwks()
        #expect(throws: expected) { try fixture.validate(tokens.idToken, keys: keys) }
        // Only the next token response was tampered with.
        let next = try ProviderFixture.tokens(try await fixture.refresh(tokens.refreshToken))
        _ = try fixture.validate(next.idToken, keys: keys, nonce: nil)
    }

    @Test func tamperedRefreshIDTokensFailTheRefreshChecks() async throws {
        let fixture = try ProviderFixture()
        let tokens = try await fixture.signIn()
        let keys = try await fixture.jwks()
        let previous = try fixture.validate(tokens.idToken, keys: keys).claims
        fixture.provider.script(.tamperedIDToken(.subject("mallory")), on: .token)
        fixture.provider.script(.tamperedIDToken(.audience("other-app")), on: .token)
        fixture.provider.script(.tamperedIDToken(.badSignature), on: .token)
        var refreshToken = tokens.refreshToken
        var errors: [IDTokenError] = []
        for _ in 0..<3 {
            let next = try ProviderFixture.tokens(try await fixture.refresh(refreshToken))
            refreshToken = next.refreshToken
            do {
                _ = try fixture.validateRefreshed(next.idToken, keys: keys, previous: previous)
            } catch {
                errors.append(error)
            }
        }
        #expect(errors == [.subjectMismatch, .audienceMismatch, .badSignature])
        #expect(
            fixture.provider.requestLog.suffix(3).map { $0.fault?.description } == [
                "tamperedIDToken(subject)", "tamperedIDToken(audience)", "tamperedIDToken(badSignature)",
            ])
    }

    @Test func requestLogRecordsCallsWithoutSecrets() async throws {
        let fixture = try ProviderFixture()
        let pkce = try PKCE.generate()
        let code = try fixture.authorizeCode(subject: "alice", pkce: pkce)
        let tokens = try ProviderFixture.tokens(try await fixture.exchange(code: code, pkce: pkce))
        _ = try await fixture.refresh(tokens.refreshToken)
        _ = try await fixture.refresh(tokens.refreshToken)
        _ = try await fixture.revoke(tokens.refreshToken)
        let log = fixture.provider.requestLog
        #expect(
            log.map(\.description) == [
                "POST /oauth/token grant_type=authorization_code → 200",
                "POST /oauth/token grant_type=refresh_token → 200",
                "POST /oauth/token grant_type=refresh_token → 400 invalid_grant",
                "POST /oauth/revoke → 200",
            ])
        let everything = log.map { "\($0) \(String(reflecting: $0))" }.joined()
        let leaked = [code.value, pkce.verifier, tokens.refreshToken.value, tokens.accessToken.value].filter {
            everything.contains($0)
        }
        #expect(leaked.isEmpty, "the request log shows a secret")
        #expect(fixture.provider.requestCount(for: .revocation) == 1)
    }
}
