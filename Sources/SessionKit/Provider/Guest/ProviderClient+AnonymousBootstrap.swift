import Foundation

extension ProviderClient {
    /// What one bootstrap call came back with, before any recovery.
    enum AnonymousBootstrapAnswer: Sendable, Equatable {
        /// A key was issued.
        case issued(AnonymousBootstrapResponse)
        /// `401 invalid_device_secret`: the presented secret (or its absence) does not fit the device.
        case invalidDeviceSecret
        /// Any other failure.
        case failed(AnonymousBootstrapError)
    }

    /// Sends one guest bootstrap (``ProviderConfiguration/anonymousBootstrap``) and decodes the answer.
    ///
    /// This is one request, without the recovery rule: a `401 invalid_device_secret` is thrown as
    /// ``AnonymousBootstrapError/invalidDeviceSecret``. `GuestBootstrapper` adds the rule (drop the
    /// secret, bootstrap afresh once), stores the device credential and coalesces callers.
    public func anonymousBootstrap(_ request: AnonymousBootstrapRequest) async throws(AnonymousBootstrapError)
        -> AnonymousBootstrapResponse
    {
        switch await anonymousBootstrapAnswer(request) {
        case .issued(let response): return response
        case .invalidDeviceSecret: throw .invalidDeviceSecret
        case .failed(let error): throw error
        }
    }

    /// One bootstrap request, classified.
    func anonymousBootstrapAnswer(_ request: AnonymousBootstrapRequest) async -> AnonymousBootstrapAnswer {
        guard let profile = configuration.anonymousBootstrap else { return .failed(.notConfigured) }
        let response: HTTPResponse
        do {
            response = try await send(Self.anonymousBootstrapRequest(request, profile: profile), to: .anonymousBootstrap)
        } catch {
            return .failed(Self.bootstrapError(from: error))
        }
        return Self.classifyAnonymousBootstrap(response, profile: profile)
    }

    /// A failure before any response (the transport's, or one a middleware threw), as a bootstrap error.
    static func bootstrapError(from error: ProviderError) -> AnonymousBootstrapError {
        switch error {
        case .transport(let failure): .transport(failure)
        case .http(let status, let code, _, _) where !error.isTransient: .rejected(status: status, error: code)
        case .http(let status, _, _, _): .unavailable(status: status, retryAfter: error.retryAfter)
        case .invalidResponse(let reason): .malformedResponse(reason)
        case .dpop(let failure): .malformedResponse(failure.code.rawValue)
        case .clientRegistration(let failure): .malformedResponse("client_registration.\(failure.code)")
        }
    }

    /// The bootstrap request: `POST`, JSON with the profile's field names, keys sorted.
    static func anonymousBootstrapRequest(_ request: AnonymousBootstrapRequest, profile: AnonymousBootstrapProfile) -> HTTPRequest {
        var body = [profile.deviceIDField: request.deviceID, profile.platformField: profile.platform]
        if let field = profile.deviceSecretField, let secret = request.deviceSecret { body[field] = secret.value }
        if let field = profile.deviceNameField, let name = request.deviceName { body[field] = name }
        // A dictionary of strings always encodes; an empty body would be refused by the provider anyway.
        let data = (try? JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return HTTPRequest(
            method: "POST", url: profile.endpoint, headers: [("Content-Type", "application/json"), ("Accept", "application/json")],
            body: data)
    }

    /// Classifies an answer; the body is read only for the fields named by the profile and never kept.
    static func classifyAnonymousBootstrap(_ response: HTTPResponse, profile: AnonymousBootstrapProfile) -> AnonymousBootstrapAnswer {
        switch response.status {
        case 200..<300:
            do throws(AnonymousBootstrapError) {
                return .issued(try AnonymousBootstrapResponse(decoding: response.body, profile: profile))
            } catch {
                return .failed(error)
            }
        case 408, 429, 500..<600:
            return .failed(.unavailable(status: response.status, retryAfter: DeviceKeyManager.retryAfter(response)))
        default:
            let code = errorCode(response.body)
            if response.status == 401, code == "invalid_device_secret" { return .invalidDeviceSecret }
            return .failed(.rejected(status: response.status, error: code))
        }
    }

    /// The OAuth-style `error` member of an error body, when it is a short token (never free text).
    private static func errorCode(_ body: Data) -> String? {
        struct ErrorBody: Decodable { let error: String }
        guard let code = try? JSONDecoder().decode(ErrorBody.self, from: body).error, !code.isEmpty, code.count <= 64,
            code.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" || $0 == ".") })
        else { return nil }
        return code
    }
}
