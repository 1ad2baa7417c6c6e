import Foundation
import SessionKit
import SessionKitJOSE

extension SimulatedProviderState {
    /// `POST /oauth/device_authorization` (RFC 8628 §3.1, §3.2): a device code, a user code and
    /// where to enter it. User codes are numbered, so a scenario prints the same one every run.
    mutating func deviceAuthorizationAnswer(_ request: HTTPRequest, now: Date) -> Answer {
        guard Self.hasContentType(request, "application/x-www-form-urlencoded") else {
            return Self.error(400, "invalid_request", "the body must be application/x-www-form-urlencoded")
        }
        let form: [String: String]
        do { form = try Self.form(of: request) } catch { return Self.formError(error) }
        guard form["client_id"] == configuration.clientID else { return Self.error(401, "invalid_client", "unknown client") }
        let deviceCode: String
        do {
            deviceCode = try RandomToken.generate(byteCount: 32)
        } catch {
            return Self.error(500, "server_error", "the device code could not be issued")
        }
        deviceCodeCounter += 1
        let number = String(deviceCodeCounter)
        let userCode = "SIMU-" + String(repeating: "0", count: max(0, 4 - number.count)) + number
        let lifetime = configuration.deviceCodeLifetime.simulatedProviderSeconds
        let interval = configuration.devicePollingInterval.simulatedProviderSeconds
        deviceCodes[deviceCode] = DeviceCode(
            clientID: configuration.clientID, scope: form["scope"] ?? "openid", userCode: userCode,
            expiresAt: now.addingTimeInterval(lifetime), interval: interval,
            script: deviceScripts.isEmpty ? nil : deviceScripts.removeFirst())
        let verification = configuration.url(for: SimulatedProviderEndpoint.deviceVerificationPath)
        return Answer(
            Self.json(
                200,
                .object([
                    ("device_code", .string(deviceCode)),
                    ("user_code", .string(userCode)),
                    ("verification_uri", .string(verification)),
                    ("verification_uri_complete", .string(verification + "?user_code=" + userCode)),
                    ("expires_in", .integer(Int(lifetime.rounded(.down)))),
                    ("interval", .integer(Int(interval.rounded(.up)))),
                ])))
    }

    /// The device code grant at the token endpoint (RFC 8628 §3.4, §3.5).
    ///
    /// A poll sooner than the interval after the previous one, or one a script names, is answered
    /// `slow_down` and adds 5 s to the interval; until the person decided, `authorization_pending`;
    /// then tokens (an id_token without nonce) or `access_denied`, once.
    mutating func pollDeviceCode(
        _ form: [String: String], now: Date, tampering: SimulatedProviderFault.IDTokenTampering?
    ) -> Answer {
        guard let code = form["device_code"], var record = deviceCodes[code], !record.isFinished else {
            return Self.error(400, "invalid_grant", "unknown device code")
        }
        guard record.clientID == form["client_id"] else {
            return Self.error(400, "invalid_grant", "the device code was issued to another client")
        }
        guard now < record.expiresAt else { return Self.error(400, "expired_token", "the device code expired") }
        record.polls += 1
        let tooSoon = record.lastPollAt.map { now.timeIntervalSince($0) < record.interval } ?? false
        record.lastPollAt = now
        if let script = record.script, record.decision == nil, record.polls >= script.decidedAtPoll {
            record.decision = (script.subject, script.decision, now)
        }
        if tooSoon || record.script?.slowDownAtPolls.contains(record.polls) == true {
            record.interval += 5
            deviceCodes[code] = record
            return Self.error(400, "slow_down", "poll less often")
        }
        guard let decision = record.decision else {
            deviceCodes[code] = record
            return Self.error(400, "authorization_pending", "the person has not decided yet")
        }
        guard decision.decision == .approve else {
            record.isFinished = true
            deviceCodes[code] = record
            return Self.error(400, "access_denied", "the person declined")
        }
        let grantID = nextGrantID
        let grant = Grant(
            subject: decision.subject, clientID: record.clientID, scope: record.scope,
            authTime: configuration.alwaysIncludesAuthTime ? decision.at : nil)
        let answer = issueTokens(
            for: grant, grantID: grantID, nonce: nil, isRefresh: false, now: now, tampering: tampering,
            includesIDToken: configuration.issuesIDTokenForDeviceGrant)
        if answer.response.status == 200 {
            nextGrantID += 1
            record.isFinished = true
        }
        deviceCodes[code] = record
        return answer
    }

    /// The person enters `userCode` at the verification page and decides; false when no pending
    /// device authorization has that user code.
    mutating func decideDevice(userCode: String, subject: String, decision: SimulatedProviderDecision, now: Date) -> Bool {
        guard let (code, record) = deviceCodes.first(where: { $0.value.userCode == userCode }), !record.isFinished,
            record.decision == nil, now < record.expiresAt
        else { return false }
        deviceCodes[code]?.decision = (subject, decision, now)
        return true
    }
}
