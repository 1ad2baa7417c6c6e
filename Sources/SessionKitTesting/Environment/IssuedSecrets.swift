public import Foundation
import SessionKit
public import SessionKitCore

/// Every secret the simulated provider issued in a scenario, as the app received it: access,
/// refresh and id tokens, authorization codes, device keys, device secrets, device codes and the
/// `state` of each end-session request.
///
/// ``SimulatedSessionEnvironment`` collects them through a tap on its transport and its
/// presenter. Use them to prove that none ever reaches somewhere it must not: a log line, a
/// rendering, an error message, a crash report, an analytics event.
///
/// ```swift
/// let rendered = "\(env.session) \(error)"
/// for secret in env.issued.all { #expect(!rendered.contains(secret.value)) }
/// ```
///
/// Every value is a `Secret`, so a failing expectation never prints one.
public final class IssuedSecrets: Sendable {
    private struct Values: Sendable {
        var accessTokens: [Secret] = []
        var refreshTokens: [Secret] = []
        var idTokens: [Secret] = []
        var codes: [Secret] = []
        var deviceKeys: [Secret] = []
        var deviceSecrets: [Secret] = []
        var deviceCodes: [Secret] = []
        var endSessionStates: [Secret] = []
    }

    private let values = Locked(Values())

    /// An empty collection.
    public init() {}

    /// The access tokens issued, in order.
    public var accessTokens: [Secret] { values.withLock { $0.accessTokens } }
    /// The refresh tokens issued, in order.
    public var refreshTokens: [Secret] { values.withLock { $0.refreshTokens } }
    /// The id_tokens issued, in order.
    public var idTokens: [Secret] { values.withLock { $0.idTokens } }
    /// The authorization codes the provider's page returned to the presenter, in order.
    public var codes: [Secret] { values.withLock { $0.codes } }
    /// The device keys issued, in order.
    public var deviceKeys: [Secret] { values.withLock { $0.deviceKeys } }
    /// The device codes issued (device authorization), in order.
    public var deviceCodes: [Secret] { values.withLock { $0.deviceCodes } }
    /// The device secrets issued, in order.
    public var deviceSecrets: [Secret] { values.withLock { $0.deviceSecrets } }
    /// The `state` of each end-session request, which the provider's return must echo.
    public var endSessionStates: [Secret] { values.withLock { $0.endSessionStates } }

    /// Every secret value, with the signature segment of each id_token on its own as well.
    public var all: [Secret] {
        values.withLock { values in
            let signatures = values.idTokens.compactMap { $0.value.split(separator: ".").last.map { Secret(String($0)) } }
            return values.accessTokens + values.refreshTokens + values.idTokens + signatures + values.codes + values.deviceKeys
                + values.deviceSecrets + values.deviceCodes + values.endSessionStates
        }
    }

    /// Records the code a callback URL carries.
    public func recordCallback(_ url: URL) {
        guard let code = Self.query(url, "code") else { return }
        values.withLock { $0.codes.append(Secret(code)) }
    }

    /// Records the `state` an end-session URL carries.
    public func recordEndSession(_ url: URL) {
        guard let state = Self.query(url, "state") else { return }
        values.withLock { $0.endSessionStates.append(Secret(state)) }
    }

    /// Records the secrets a JSON answer of the provider carries.
    public func recordResponse(_ body: Data) {
        guard let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else { return }
        values.withLock { values in
            if let value = object["access_token"] as? String { values.accessTokens.append(Secret(value)) }
            if let value = object["refresh_token"] as? String { values.refreshTokens.append(Secret(value)) }
            if let value = object["id_token"] as? String { values.idTokens.append(Secret(value)) }
            if let value = object["device_key"] as? String { values.deviceKeys.append(Secret(value)) }
            if let value = object["device_secret"] as? String { values.deviceSecrets.append(Secret(value)) }
            if let value = object["device_code"] as? String { values.deviceCodes.append(Secret(value)) }
        }
    }

    private static func query(_ url: URL, _ name: String) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == name }?.value
    }
}

/// Passes requests to the simulated provider and records the secrets in its answers.
struct IssuedSecretsTap: HTTPTransport {
    let base: SimulatedProvider<TestClock>
    let issued: IssuedSecrets

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let response = try await base.send(request)
        issued.recordResponse(response.body)
        return response
    }
}
