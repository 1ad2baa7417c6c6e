import Foundation
import SessionKit
import SessionKitJOSE

/// Everything a ``SimulatedProvider`` knows, and the synchronous handling of one request.
///
/// It is a value type behind the provider's mutex: each request is handled in one critical
/// section given the wall-clock time it arrived at, so the provider stays consistent under any
/// number of concurrent callers. Sleeping (timeouts, slow answers) is left to the provider shell.
struct SimulatedProviderState {
    /// What the shell does after the critical section.
    enum Outcome: Sendable {
        /// Answer at once.
        case respond(HTTPResponse)
        /// Sleep on the injected clock, then answer.
        case respondAfter(Duration, HTTPResponse)
        /// Sleep the configured deadline, then fail with `timedOut`.
        case timeOut
        /// Fail at once.
        case fail(TransportError)
    }

    /// An answer with the fields the request log keeps.
    struct Answer {
        var response: HTTPResponse
        var errorCode: String?

        init(_ response: HTTPResponse, errorCode: String? = nil) {
            self.response = response
            self.errorCode = errorCode
        }
    }

    struct SigningKey {
        /// The private key, of the type the configured algorithm signs with.
        enum Signer {
            case rsa(RSAPrivateKey)
            case p256(P256PrivateKey)
        }

        let signer: Signer
        let keyID: String
        /// The public half as the JWKS publishes it, made once: reading the modulus out of the
        /// key on every JWKS request would cost more than serving it.
        let publicJWK: JWK
        /// The instant a retired key leaves the JWKS.
        var publishedUntil: Date?

        init(_ signer: Signer, keyID: String) {
            self.signer = signer
            self.keyID = keyID
            switch signer {
            case .rsa(let key): self.publicJWK = key.publicJWK(keyID: keyID)
            case .p256(let key): self.publicJWK = key.publicJWK(keyID: keyID)
            }
        }

        /// A compact JWS of `payload` under this key's algorithm and `kid` (or `keyID` when given).
        func sign(_ payload: [UInt8], keyID: String?) throws(CryptoError) -> String {
            switch signer {
            case .rsa(let key): try CompactJWS.signRS256(payload: payload, keyID: keyID, key: key)
            case .p256(let key): try CompactJWS.signES256(payload: payload, keyID: keyID, key: key)
            }
        }
    }

    struct AuthorizationCode {
        let clientID: String
        let redirectURI: String
        let challenge: String
        let nonce: String?
        let subject: String
        let scope: String
        let issuedAt: Date
        /// The `auth_time` id_tokens from this code carry; nil leaves the claim out.
        var authTime: Date?
        /// The `acr` id_tokens from this code carry.
        var acr: String?
        /// Set once the code was exchanged; a second exchange revokes this grant.
        var grantID: Int?
        /// The `dpop_jkt` of the authorization request: only a proof of that key may exchange the code.
        var dpopJKT: String?
    }

    struct Grant {
        let subject: String
        let clientID: String
        let scope: String
        var currentRefreshToken: String?
        /// The token the last rotation replaced, and when: a replay of it within the reuse grace
        /// period is forgiven.
        var previousRefreshToken: String?
        var previousRetiredAt: Date?
        var isRevoked = false
        /// The `auth_time` every id_token of this grant carries (a refresh keeps the original one).
        var authTime: Date?
        /// The `acr` every id_token of this grant carries.
        var acr: String?
        /// The thumbprint of the DPoP key the refresh token is bound to.
        var dpopJKT: String?
    }

    /// One device authorization (RFC 8628) from request to tokens.
    struct DeviceCode {
        let clientID: String
        let scope: String
        let userCode: String
        let expiresAt: Date
        /// The current polling interval in seconds; `slow_down` adds 5.
        var interval: Double
        var lastPollAt: Date?
        var polls = 0
        var script: SimulatedProviderDeviceScript?
        /// Set once the person decided.
        var decision: (subject: String, decision: SimulatedProviderDecision, at: Date)?
        /// Set once tokens were issued or the denial was answered: later polls get `invalid_grant`.
        var isFinished = false
    }

    struct RefreshTokenRecord {
        let grantID: Int
        let issuedAt: Date
    }

    struct AccessTokenRecord {
        let grantID: Int
        let expiresAt: Date
    }

    struct Device {
        let subject: String
        /// `nil` once invalidated by a test: no presented secret matches until the device bootstraps again.
        var secret: String?
        var platform: String
    }

    /// A device bootstrapped as a guest, and the anonymous user it is bound to.
    struct GuestDevice {
        var userID: Int
        var secret: String?
        var platform: String
        var name: String?
    }

    struct DeviceKeyRecord {
        let subject: String
        let expiresAt: Date
    }

    let configuration: SimulatedProviderConfiguration

    var currentKey: SigningKey
    var retiredKeys: [SigningKey] = []
    var spareKeys: [RSAPrivateKey]
    var keyCounter = 1

    var users: [String: SimulatedProviderUser] = [:]
    var codes: [String: AuthorizationCode] = [:]
    var grants: [Int: Grant] = [:]
    var nextGrantID = 1
    var refreshTokens: [String: RefreshTokenRecord] = [:]
    var accessTokens: [String: AccessTokenRecord] = [:]
    var devices: [String: Device] = [:]
    var deviceKeys: [String: DeviceKeyRecord] = [:]
    var guestDevices: [String: GuestDevice] = [:]
    var nextGuestUserID = 1
    /// The grant behind each guest user's access keys, so they count as active access tokens.
    var guestGrants: [Int: Int] = [:]
    /// The simulated browser's sessions: when each subject last authenticated.
    var browserSessions: [String: Date] = [:]
    var authorizationRecords: [SimulatedProviderAuthorizationRecord] = []
    var endSessionRecords: [SimulatedProviderEndSessionRecord] = []
    var deviceCodes: [String: DeviceCode] = [:]
    var deviceScripts: [SimulatedProviderDeviceScript] = []
    var deviceCodeCounter = 0
    /// A `sub` the UserInfo endpoint answers with instead of the token's, to test the §5.3.2 check.
    var userInfoSubjectOverride: String?
    var userInfoSigning: SimulatedUserInfoSigning?
    var discoveryIssuerOverride: String?
    var webFingerAnswer: SimulatedWebFingerAnswer = .truth
    /// The clients registered through the registration endpoint, by client id.
    var registeredClients: [String: RegisteredClient] = [:]
    var registrationCounter = 0
    /// Every registration request's metadata, in order; no secret.
    var registrationRecords: [SimulatedProviderRegistrationRecord] = []

    /// The DPoP nonce every proof must carry, when the configuration requires one.
    var dpopNonce: String?
    /// Set by ``SimulatedProvider/stopBindingTokens()``: tokens are issued as `Bearer` from now on.
    var dpopIssuesBearer = false
    /// Every `jti` seen, so a replayed proof is refused.
    var dpopProofIDs: Set<String> = []
    /// The proof keys already built and checked, by their `x` and `y` as the proofs carry them.
    var dpopProofKeys = SimulatedDPoPVerifier.KeyCache()
    /// The resource server's nonce, scripted refusals and counters.
    var resource = ResourceState()
    var faults: [SimulatedProviderEndpoint: [(fault: SimulatedProviderFault, remaining: Int)]] = [:]
    var log: [SimulatedProviderLogEntry] = []
    var requestCounts: [SimulatedProviderEndpoint: Int] = [:]
    var grantTypeCounts: [String: Int] = [:]
    var revokedChains: [SimulatedProviderRevokedChain] = []

    /// A state signing with `first`; `spareKeys` are the RSA keys later rotations use in turn.
    init(configuration: SimulatedProviderConfiguration, first: SigningKey.Signer, spareKeys: [RSAPrivateKey]) {
        self.configuration = configuration
        self.currentKey = SigningKey(first, keyID: Self.keyID(number: 1))
        self.spareKeys = spareKeys
    }

    static func keyID(number: Int) -> String { "sim-key-\(number)" }

    // MARK: Receiving a request

    /// Handles one request completely: counts it, applies a scripted fault, changes state, logs it.
    mutating func receive(_ request: HTTPRequest, now: Date) -> Outcome {
        let path = Self.path(of: request.url)
        if isResourceRequest(request.url) {
            let response = resourceAnswer(request, now: now)
            appendLog(request, path: path, endpoint: nil, grantType: nil, status: response.status, errorCode: nil, fault: nil, now: now)
            return .respond(response)
        }
        guard Self.sameOrigin(request.url, configuration.issuer) else {
            appendLog(request, path: path, endpoint: nil, grantType: nil, status: nil, errorCode: nil, fault: nil, now: now)
            return .fail(.connectionFailed("no simulated host answers at this address"))
        }
        let relative = path == SimulatedProviderEndpoint.webFinger.path ? path : relativePath(path)
        guard let (endpoint, clientIDSegment) = Self.endpoint(forRelativePath: relative) else {
            let answer = Self.error(404, "not_found")
            appendLog(request, path: path, endpoint: nil, grantType: nil, status: 404, errorCode: answer.errorCode, fault: nil, now: now)
            return .respond(answer.response)
        }
        requestCounts[endpoint, default: 0] += 1
        // Decoded once: the log's grant type and the endpoint read the same form.
        let form: Result<[String: String], SimulatedProviderForm.Failure>? =
            endpoint == .token || endpoint == .revocation ? Self.decodedForm(of: request) : nil
        let grantType = endpoint == .token ? (try? form?.get())?["grant_type"] : nil
        if let grantType { grantTypeCounts[grantType, default: 0] += 1 }
        let fault = takeFault(for: endpoint)

        func logged(_ answer: Answer) -> HTTPResponse {
            appendLog(
                request, path: path, endpoint: endpoint, grantType: grantType, status: answer.response.status,
                errorCode: answer.errorCode, fault: fault, now: now)
            return answer.response
        }
        func process(tampering: SimulatedProviderFault.IDTokenTampering? = nil) -> Answer {
            guard endpoint.methods.contains(request.method) else {
                return Answer(HTTPResponse(status: 405, headers: ["Allow": endpoint.methods.sorted().joined(separator: ", ")]))
            }
            return handle(endpoint, request, form: form, clientIDSegment: clientIDSegment, now: now, tampering: tampering)
        }

        switch fault {
        case nil:
            return .respond(logged(process()))
        case .timeout?:
            appendLog(request, path: path, endpoint: endpoint, grantType: grantType, status: nil, errorCode: nil, fault: fault, now: now)
            return .timeOut
        case .timeoutAfterProcessing?:
            _ = process()
            appendLog(request, path: path, endpoint: endpoint, grantType: grantType, status: nil, errorCode: nil, fault: fault, now: now)
            return .timeOut
        case .connectionFailure?:
            appendLog(request, path: path, endpoint: endpoint, grantType: grantType, status: nil, errorCode: nil, fault: fault, now: now)
            return .fail(.connectionFailed("simulated connection failure"))
        case .slow(let delay)?:
            return .respondAfter(delay, logged(process()))
        case .tamperedIDToken(let tampering)?:
            return .respond(logged(process(tampering: endpoint == .token ? tampering : nil)))
        case let canned?:
            return .respond(logged(Self.cannedAnswer(canned, endpoint: endpoint)))
        }
    }

    private mutating func takeFault(for endpoint: SimulatedProviderEndpoint) -> SimulatedProviderFault? {
        guard var queue = faults[endpoint], !queue.isEmpty else { return nil }
        let fault = queue[0].fault
        queue[0].remaining -= 1
        if queue[0].remaining <= 0 { queue.removeFirst() }
        faults[endpoint] = queue.isEmpty ? nil : queue
        return fault
    }

    private mutating func appendLog(
        _ request: HTTPRequest, path: String, endpoint: SimulatedProviderEndpoint?, grantType: String?, status: Int?,
        errorCode: String?, fault: SimulatedProviderFault?, now: Date
    ) {
        log.append(
            SimulatedProviderLogEntry(
                method: request.method, path: path, endpoint: endpoint, grantType: grantType, status: status,
                errorCode: errorCode, fault: fault, receivedAt: now))
    }

    private mutating func handle(
        _ endpoint: SimulatedProviderEndpoint, _ request: HTTPRequest, form: Result<[String: String], SimulatedProviderForm.Failure>?,
        clientIDSegment: String?, now: Date, tampering: SimulatedProviderFault.IDTokenTampering?
    ) -> Answer {
        switch endpoint {
        case .discovery: discoveryAnswer()
        case .jwks: jwksAnswer(now: now)
        case .token: tokenAnswer(request, form: form ?? Self.decodedForm(of: request), now: now, tampering: tampering)
        case .revocation: revocationAnswer(request, form: form ?? Self.decodedForm(of: request), now: now)
        case .deviceKeyExchange: deviceKeyExchangeAnswer(request, now: now)
        case .disconnect: disconnectAnswer(request, clientID: clientIDSegment ?? "", now: now)
        case .userInfo: userInfoAnswer(request, now: now)
        case .deviceAuthorization: deviceAuthorizationAnswer(request, now: now)
        case .anonymousBootstrap: anonymousBootstrapAnswer(request, now: now)
        case .registration: registrationAnswer(request, now: now)
        case .clientConfiguration: clientConfigurationAnswer(request, clientID: clientIDSegment ?? "", now: now)
        case .webFinger: webFingerAnswer(request)
        }
    }

    // MARK: Routing

    static func path(of url: URL) -> String {
        url.path(percentEncoded: true)
    }

    static func sameOrigin(_ url: URL, _ issuer: URL) -> Bool {
        guard let scheme = url.scheme, let issuerScheme = issuer.scheme, let host = url.host(percentEncoded: true),
            let issuerHost = issuer.host(percentEncoded: true)
        else { return false }
        return ASCII.caseInsensitiveEquals(scheme, issuerScheme) && ASCII.caseInsensitiveEquals(host, issuerHost)
            && url.port == issuer.port
    }

    private func relativePath(_ path: String) -> String {
        var prefix = Self.path(of: configuration.issuer)
        while prefix.hasSuffix("/") { prefix.removeLast() }
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }

    /// The endpoint a path under the issuer names, with the percent-decoded client id of a disconnect.
    static func endpoint(forRelativePath path: String) -> (SimulatedProviderEndpoint, String?)? {
        for endpoint in SimulatedProviderEndpoint.allCases where endpoint != .disconnect && endpoint != .clientConfiguration {
            if path == endpoint.path { return (endpoint, nil) }
        }
        for endpoint in [SimulatedProviderEndpoint.disconnect, .clientConfiguration] where path.hasPrefix(endpoint.path) {
            let segment = String(path.dropFirst(endpoint.path.count))
            guard !segment.isEmpty, !segment.contains("/"), let clientID = segment.removingPercentEncoding else { return nil }
            return (endpoint, clientID)
        }
        return nil
    }

    static func form(of request: HTTPRequest) throws(SimulatedProviderForm.Failure) -> [String: String] {
        try SimulatedProviderForm.decodeForm(request.body ?? Data())
    }

    static func decodedForm(of request: HTTPRequest) -> Result<[String: String], SimulatedProviderForm.Failure> {
        Result { () throws(SimulatedProviderForm.Failure) in try form(of: request) }
    }

    // MARK: Answers

    static func json(_ status: Int, _ value: SimulatedProviderJSON, headers: [String: String] = [:]) -> HTTPResponse {
        var all = ["Content-Type": "application/json", "Cache-Control": "no-store", "Pragma": "no-cache"]
        all.merge(headers) { _, new in new }
        return HTTPResponse(status: status, headers: all, body: Data(value.bytes))
    }

    static func error(_ status: Int, _ code: String, _ description: String? = nil, headers: [String: String] = [:]) -> Answer {
        var members: [(String, SimulatedProviderJSON)] = [("error", .string(code))]
        if let description { members.append(("error_description", .string(description))) }
        return Answer(json(status, .object(members), headers: headers), errorCode: code)
    }

    static func bearerError(_ code: String = "invalid_token", _ description: String? = nil) -> Answer {
        error(401, code, description, headers: ["WWW-Authenticate": "Bearer error=\"\(code)\""])
    }

    static func cannedAnswer(_ fault: SimulatedProviderFault, endpoint: SimulatedProviderEndpoint) -> Answer {
        let usesBearer =
            endpoint == .deviceKeyExchange || endpoint == .disconnect || endpoint == .userInfo || endpoint == .clientConfiguration
        switch fault {
        case .serverError(let status, let retryAfter):
            return error(
                status, "server_error", "simulated server error",
                headers: retryAfter.map { ["Retry-After": String($0)] } ?? [:])
        case .rateLimited(let seconds):
            return error(429, "rate_limited", "slow down", headers: ["Retry-After": String(seconds)])
        case .invalidGrant:
            return error(400, "invalid_grant", "the grant is invalid")
        case .unauthorized:
            return usesBearer ? bearerError() : error(401, "invalid_client", "client authentication failed")
        case .forbidden:
            return error(403, "forbidden")
        case .notFound:
            return error(404, "not_found")
        case .malformedJSON:
            let body = Data(#"{"access_token":"#.utf8)
            return Answer(HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: body))
        case .rawAnswer(let status, let body):
            return Answer(HTTPResponse(status: status, headers: [:], body: Data(body.utf8)))
        case .timeout, .timeoutAfterProcessing, .connectionFailure, .slow, .tamperedIDToken:
            // The caller handles these before asking for a canned answer.
            return error(500, "server_error")
        }
    }
}
