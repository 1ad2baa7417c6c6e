import Foundation
import SessionKit
import SessionKitJOSE

extension SimulatedProviderState {
    /// The `sub` a guest user's access keys carry at the UserInfo endpoint.
    static func guestSubject(_ userID: Int) -> String { "guest-\(userID)" }

    /// `POST /api/v1/auth/anonymous_bootstrap`: a device-bound access key for the device's guest.
    ///
    /// A request without `device_secret` bootstraps: an unknown device gets a new guest user, a
    /// known one is bound to a new guest user (the previous guest must sign in again), and only
    /// such an answer carries a (new) secret. A request with a secret must present the one last
    /// issued for that device; any other secret, or a secret for a device the provider does not
    /// know (forgotten by ``SimulatedProvider/forgetGuestDevice(deviceID:)``), gets
    /// `401 invalid_device_secret`.
    mutating func anonymousBootstrapAnswer(_ request: HTTPRequest, now: Date) -> Answer {
        guard Self.hasContentType(request, "application/json") else {
            return Self.error(400, "invalid_request", "the body must be application/json")
        }
        guard let body = SimulatedProviderJSON.parseObject(request.body ?? Data()),
            case .string(let deviceID)? = body["device_id"], !deviceID.isEmpty,
            case .string(let platform)? = body["device_platform"]
        else { return Self.error(400, "invalid_request", "device_id and device_platform are required strings") }
        guard platform == "ios" || platform == "macos" else {
            return Self.error(400, "invalid_request", "device_platform must be ios or macos")
        }
        let presentedSecret: String?
        switch body["device_secret"] {
        case nil, .null?: presentedSecret = nil
        case .string(let secret)?: presentedSecret = secret
        case .other?: return Self.error(400, "invalid_request", "device_secret must be a string")
        }
        var name: String?
        switch body["device_name"] {
        case nil, .null?: break
        case .string(let text)?: name = text
        case .other?: return Self.error(400, "invalid_request", "device_name must be a string")
        }

        let freshSecret: String
        let key: String
        do {
            freshSecret = try RandomToken.generate(byteCount: 32)
            key = try RandomToken.generate(byteCount: 32)
        } catch {
            return Self.error(500, "server_error", "the access key could not be issued")
        }
        let userID: Int
        var issuedSecret: String?
        if let presentedSecret {
            guard let device = guestDevices[deviceID], let secret = device.secret, secret == presentedSecret else {
                return Self.error(401, "invalid_device_secret", "the device secret is not valid")
            }
            userID = device.userID
            guestDevices[deviceID]?.name = name ?? device.name
        } else {
            userID = nextGuestUserID
            nextGuestUserID += 1
            issuedSecret = freshSecret
            guestDevices[deviceID] = GuestDevice(userID: userID, secret: freshSecret, platform: platform, name: name)
        }

        let grantID: Int
        if let existing = guestGrants[userID], grants[existing]?.isRevoked == false {
            grantID = existing
        } else {
            grantID = nextGrantID
            nextGrantID += 1
            grants[grantID] = Grant(subject: Self.guestSubject(userID), clientID: configuration.clientID, scope: "")
            guestGrants[userID] = grantID
        }
        let lifetime = configuration.accessTokenLifetime.simulatedProviderSeconds
        accessTokens[key] = AccessTokenRecord(grantID: grantID, expiresAt: now.addingTimeInterval(lifetime))

        var members: [(String, SimulatedProviderJSON)] = [
            ("access_token", .string(key)),
            ("token_type", .string("Bearer")),
            ("expires_in", .integer(Int(lifetime.rounded(.down)))),
        ]
        if let issuedSecret { members.append(("device_secret", .string(issuedSecret))) }
        members.append(
            ("user", .object([("id", .integer(userID)), ("anonymous", .bool(true)), ("nickname", .string("Guest \(userID)"))])))
        return Answer(Self.json(200, .object(members)))
    }

    /// Forgets a guest device as a server-side reset would: its secret no longer matches and its
    /// guest's keys stop working. False when the device is unknown.
    mutating func forgetGuestDevice(_ deviceID: String) -> Bool {
        guard let device = guestDevices.removeValue(forKey: deviceID) else { return false }
        if let grantID = guestGrants.removeValue(forKey: device.userID) {
            revokeGrant(grantID, reason: .administrative)
        }
        return true
    }
}
