import Foundation
import SessionKitCore

extension DeviceKeyManager {
    /// What one exchange call came back with.
    enum ExchangeOutcome: Sendable {
        case issued(key: Secret, expiresIn: Int, secret: Secret?)
        case invalidDeviceSecret
        case failed(ExchangeError)
    }

    private struct RequestBody: Encodable {
        let deviceUUID: String
        let platform: String
        let deviceSecret: String?

        enum CodingKeys: String, CodingKey {
            case deviceUUID = "device_uuid"
            case platform
            case deviceSecret = "device_secret"
        }
    }

    private struct ResponseBody: Decodable {
        let deviceKey: String
        let expiresIn: Int
        let deviceSecret: String?

        enum CodingKeys: String, CodingKey {
            case deviceKey = "device_key"
            case expiresIn = "expires_in"
            case deviceSecret = "device_secret"
        }
    }

    private struct ErrorBody: Decodable {
        let error: String
    }

    /// The exchange request: Bearer access token, JSON body with the device's uuid, platform and secret once known.
    static func exchangeRequest(
        endpoint: URL, accessToken: Secret, credential: DeviceCredential, platform: String
    ) -> HTTPRequest {
        let body = RequestBody(
            deviceUUID: credential.deviceUUID, platform: platform, deviceSecret: credential.deviceSecret?.value)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding three strings cannot fail; an empty body would be rejected by the provider anyway.
        let data = (try? encoder.encode(body)) ?? Data()
        return HTTPRequest(
            method: "POST", url: endpoint,
            headers: [
                ("Authorization", "Bearer \(accessToken.value)"),
                ("Content-Type", "application/json"),
                ("Accept", "application/json"),
            ],
            body: data)
    }

    /// Classifies a response; the body is read only for the fields named here and never kept.
    static func outcome(of response: HTTPResponse) -> ExchangeOutcome {
        switch response.status {
        case 200..<300:
            guard let body = try? JSONDecoder().decode(ResponseBody.self, from: response.body), !body.deviceKey.isEmpty,
                body.expiresIn > 0, body.deviceSecret.map({ !$0.isEmpty }) ?? true
            else { return .failed(.malformedResponse) }
            return .issued(key: Secret(body.deviceKey), expiresIn: body.expiresIn, secret: body.deviceSecret.map(Secret.init))
        case 401:
            let code = try? JSONDecoder().decode(ErrorBody.self, from: response.body).error
            return code == "invalid_device_secret" ? .invalidDeviceSecret : .failed(.accessTokenRejected)
        case 409:
            return .failed(.deviceConflict)
        case 408, 429, 500..<600:
            return .failed(.unavailable(status: response.status, retryAfter: retryAfter(response)))
        default:
            return .failed(.rejected(status: response.status))
        }
    }

    /// `Retry-After` in delta-seconds; the HTTP-date form is not trusted without a shared clock.
    static func retryAfter(_ response: HTTPResponse) -> Duration? {
        guard let value = response.header("Retry-After")?.trimmingCharacters(in: .whitespaces),
            let seconds = Int(value), seconds >= 0
        else { return nil }
        return .seconds(seconds)
    }
}
