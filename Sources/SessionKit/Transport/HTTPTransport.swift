public import Foundation

/// One HTTP request as SessionKit sends it to the identity provider.
public struct HTTPRequest: Sendable, Equatable {
    /// The request method, such as `GET`, `POST` or `DELETE`.
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// Header fields in the order they are sent. Names are matched case-insensitively.
    public var headers: [(name: String, value: String)]
    /// The body, if any.
    public var body: Data?

    /// Creates a request.
    public init(method: String, url: URL, headers: [(name: String, value: String)] = [], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, matched case-insensitively.
    ///
    /// Field names are tokens, ASCII only (RFC 9110 §5.1), so ASCII letters are folded and any
    /// other byte must match exactly.
    public func header(_ name: String) -> String? {
        headers.first { ASCII.caseInsensitiveEquals($0.name, name) }?.value
    }

    /// Equal when method, URL, body and the ordered header fields are equal.
    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.url == rhs.url && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }
}

/// One HTTP response as the transport received it.
public struct HTTPResponse: Sendable, Equatable {
    /// The status code.
    public var status: Int
    /// Header fields; names are lower-cased.
    public var headers: [String: String]
    /// The body, at most the transport's size cap.
    public var body: Data

    /// Creates a response. Header names are lower-cased.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// The value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }
}

/// Why a request produced no response.
@nonexhaustive
public enum TransportError: Error, Sendable, Hashable {
    /// The connection could not be made or broke (refused, reset, DNS, TLS).
    case connectionFailed(String)
    /// No complete response arrived before the deadline.
    case timedOut
    /// The response body exceeded the transport's size cap.
    case responseTooLarge(limit: Int)
    /// The calling task was cancelled.
    case cancelled
}

/// The seam through which every request to the identity provider goes.
///
/// The default implementation is ``URLSessionTransport``; the test kit plugs a simulated
/// provider in here. Implementations must not follow redirects: a 3xx is returned as it is.
public protocol HTTPTransport: Sendable {
    /// Sends one request and returns the provider's response, whatever its status.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse
}
