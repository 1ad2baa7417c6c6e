import Foundation
import SessionKit
import SessionKitJOSE

extension SimulatedProviderState {
    /// `POST /api/v1/me/device_keys/exchange`: a device-bound key for the access token's user.
    ///
    /// A request without `device_secret` bootstraps the device and is the only one answered with a
    /// (new) secret; a request with one must present the secret last issued for that uuid.
    mutating func deviceKeyExchangeAnswer(_ request: HTTPRequest, now: Date) -> Answer {
        guard let token = Self.bearerToken(of: request), isAccessTokenActive(token, now: now),
            let record = accessTokens[token], let subject = grants[record.grantID]?.subject
        else { return Self.bearerError() }
        guard Self.hasContentType(request, "application/json") else {
            return Self.error(400, "invalid_request", "the body must be application/json")
        }
        guard let body = SimulatedProviderJSON.parseObject(request.body ?? Data()),
            case .string(let uuid)? = body["device_uuid"], !uuid.isEmpty,
            case .string(let platform)? = body["platform"], !platform.isEmpty
        else { return Self.error(400, "invalid_request", "device_uuid and platform are required strings") }
        let presentedSecret: String?
        switch body["device_secret"] {
        case nil, .null?: presentedSecret = nil
        case .string(let secret)?: presentedSecret = secret
        case .other?: return Self.error(400, "invalid_request", "device_secret must be a string")
        }

        let freshSecret: String
        let key: String
        do {
            freshSecret = try RandomToken.generate(byteCount: 32)
            key = try RandomToken.generate(byteCount: 32)
        } catch {
            return Self.error(500, "server_error", "the device key could not be issued")
        }
        var issuedSecret: String?
        if let device = devices[uuid] {
            guard device.subject == subject else {
                return Self.error(409, "device_conflict", "the device belongs to another account")
            }
            if let presentedSecret {
                guard presentedSecret == device.secret else {
                    return Self.error(401, "invalid_device_secret", "the device secret is not valid")
                }
            } else {
                issuedSecret = freshSecret
            }
        } else {
            guard presentedSecret == nil else {
                return Self.error(401, "invalid_device_secret", "the device secret is not valid")
            }
            issuedSecret = freshSecret
        }
        devices[uuid] = Device(subject: subject, secret: issuedSecret ?? devices[uuid]?.secret, platform: platform)

        let lifetime = configuration.deviceKeyLifetime.simulatedProviderSeconds
        deviceKeys[key] = DeviceKeyRecord(subject: subject, expiresAt: now.addingTimeInterval(lifetime))
        var members: [(String, SimulatedProviderJSON)] = [
            ("device_key", .string(key)),
            ("expires_in", .integer(Int(lifetime.rounded(.down)))),
        ]
        if let issuedSecret { members.append(("device_secret", .string(issuedSecret))) }
        return Answer(Self.json(200, .object(members)))
    }

    /// `DELETE /api/v1/me/connected_apps/{client_id}`: revokes every grant of the device key's user for the client.
    mutating func disconnectAnswer(_ request: HTTPRequest, clientID: String, now: Date) -> Answer {
        guard let key = Self.bearerToken(of: request), let record = deviceKeys[key], now < record.expiresAt else {
            return Self.bearerError()
        }
        let connected = grants.filter { !$0.value.isRevoked && $0.value.subject == record.subject && $0.value.clientID == clientID }
        guard !connected.isEmpty else { return Self.error(404, "not_found", "the app is not connected") }
        for grantID in connected.keys.sorted() {
            revokeGrant(grantID, reason: .disconnect)
        }
        return Answer(HTTPResponse(status: 204))
    }

    /// The credential of an `Authorization: Bearer …` header.
    static func bearerToken(of request: HTTPRequest) -> String? {
        guard let value = request.header("Authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
