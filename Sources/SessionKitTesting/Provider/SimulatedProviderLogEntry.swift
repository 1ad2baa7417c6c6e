public import Foundation

/// One request a ``SimulatedProvider`` received, as a test may inspect it.
///
/// It holds no secret: no header, no body, no query, only what identifies the kind of call and
/// how it was answered.
public struct SimulatedProviderLogEntry: Sendable, Equatable, CustomStringConvertible {
    /// The request method.
    public var method: String
    /// The request path (for disconnect it includes the client id, which is public).
    public var path: String
    /// The endpoint the path belongs to, or `nil` for an unknown path.
    public var endpoint: SimulatedProviderEndpoint?
    /// The `grant_type` of a token request.
    public var grantType: String?
    /// The status answered, or `nil` when the call failed without a response (timeout, connection failure).
    public var status: Int?
    /// The OAuth `error` code answered, if any (e.g. `invalid_grant`).
    public var errorCode: String?
    /// The scripted fault that shaped the answer, if any.
    public var fault: SimulatedProviderFault?
    /// The provider's wall-clock time when the request arrived.
    public var receivedAt: Date

    /// Creates a log entry.
    public init(
        method: String, path: String, endpoint: SimulatedProviderEndpoint?, grantType: String?, status: Int?,
        errorCode: String?, fault: SimulatedProviderFault?, receivedAt: Date
    ) {
        self.method = method
        self.path = path
        self.endpoint = endpoint
        self.grantType = grantType
        self.status = status
        self.errorCode = errorCode
        self.fault = fault
        self.receivedAt = receivedAt
    }

    /// One line, e.g. `POST /oauth/token grant_type=refresh_token → 400 invalid_grant`.
    public var description: String {
        var line = "\(method) \(path)"
        if let grantType { line += " grant_type=\(grantType)" }
        line += " → " + (status.map(String.init) ?? "no response")
        if let errorCode { line += " \(errorCode)" }
        if let fault { line += " [fault: \(fault)]" }
        return line
    }
}
