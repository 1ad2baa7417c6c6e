import Foundation

/// What went wrong talking to the provider, classified for the retry policy.
///
/// Transient: transport failures, timeouts, 408, 429, 5xx, undecodable answers. Permanent:
/// `invalid_grant`, `invalid_client`, other 400s, 401, 403. Bodies are truncated and scrubbed of
/// anything token-like before they are kept.
@nonexhaustive
public enum ProviderError: Error, Sendable, Hashable {
    /// No response: connection failure, timeout, cancellation, oversize body.
    case transport(TransportError)
    /// An HTTP error status, with the OAuth `error` code when the body had one.
    case http(status: Int, error: String?, retryAfterSeconds: Double?, excerpt: String)
    /// A success status whose body was not what the protocol requires.
    case invalidResponse(String)
    /// A DPoP failure SessionKit found in the answer (RFC 9449): a downgrade to `Bearer`, a
    /// `Bearer` answer where DPoP is required, a binding to another key, a refresh token spent by
    /// the nonce retry, or a nonce demand the sender may answer with one retry
    /// (``DPoPFailure/Code/useNonce``).
    case dpop(DPoPFailure)
    /// The session's registered client could not be kept current before a request that
    /// authenticates it (RFC 7591 §3.2.1, RFC 7592 §2.1): its secret expired and renewing it
    /// failed, or the provider no longer knows the client and a new one was registered
    /// (``ClientRegistrationError/Code/clientReplaced``, which ends the session).
    case clientRegistration(ClientRegistrationError)

    /// Whether retrying later may succeed.
    public var isTransient: Bool {
        switch self {
        case .transport(let error): error != .cancelled
        case .http(let status, _, _, _): status == 408 || status == 429 || (500...599).contains(status)
        case .invalidResponse: true
        case .dpop: false
        case .clientRegistration(let error): error.code == .transport
        }
    }

    /// The provider's requested delay (`Retry-After`), when it gave one.
    public var retryAfter: Duration? {
        guard case .http(_, _, let seconds?, _) = self, seconds.isFinite, seconds >= 0 else { return nil }
        // A provider may send any number; a year is more than any retry should wait.
        return .milliseconds(Int64((min(seconds, 31_536_000) * 1000).rounded()))
    }

    /// The OAuth error code (`invalid_grant`, …), when the provider sent one.
    public var oauthError: String? {
        guard case .http(_, let error, _, _) = self else { return nil }
        return error
    }

    /// The HTTP status, when there was a response.
    public var status: Int? {
        guard case .http(let status, _, _, _) = self else { return nil }
        return status
    }

    /// A short phrase for transition reasons and logs.
    public var summary: String {
        switch self {
        case .transport(.connectionFailed): "connection failed"
        case .transport(.timedOut): "timed out"
        case .transport(.responseTooLarge): "response too large"
        case .transport(.cancelled): "cancelled"
        case .http(let status, let error?, _, _): "\(status) \(error)"
        case .http(let status, nil, _, _): "HTTP \(status)"
        case .invalidResponse(let why): "invalid response: \(why)"
        case .dpop(let failure): failure.code.rawValue
        case .clientRegistration(let error): "client registration: \(error.code)"
        }
    }

    /// Builds the error for a non-success response; keeps only a scrubbed excerpt of the body.
    static func fromResponse(_ response: HTTPResponse, now: Date) -> ProviderError {
        let json = (try? JSONSerialization.jsonObject(with: response.body)) as? [String: Any]
        let code = (json?["error"] as? String).map { String($0.prefix(64)) }
        return .http(
            status: response.status, error: code, retryAfterSeconds: retryAfterSeconds(response.header("retry-after"), now: now),
            excerpt: scrub(String(decoding: response.body.prefix(512), as: UTF8.self)))
    }

    /// `Retry-After` as delta-seconds or an HTTP-date (RFC 9110 §10.2.3).
    static func retryAfterSeconds(_ value: String?, now: Date) -> Double? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value), seconds >= 0 { return Double(seconds) }
        // IMF-fixdate, then the obsolete RFC 850 and asctime forms a recipient must also accept.
        let formats = ["EEE, dd MMM yyyy HH:mm:ss 'GMT'", "EEEE, dd-MMM-yy HH:mm:ss 'GMT'", "EEE MMM d HH:mm:ss yyyy"]
        let normalized = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for format in formats {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = format
            if let date = formatter.date(from: normalized) { return max(0, date.timeIntervalSince(now)) }
        }
        return nil
    }

    /// At most 200 characters; any run of 16 or more token-alphabet characters is redacted.
    static func scrub(_ text: String) -> String {
        var output = ""
        var run = ""
        func flush() {
            output += run.count >= 16 ? "<redacted>" : run
            run = ""
        }
        // Redact over the whole text first, so a token cut by the length limit leaves no fragment.
        for character in text {
            if character.isASCII && (character.isLetter || character.isNumber || "-_.~+/=".contains(character)) {
                run.append(character)
            } else {
                flush()
                output.append(character.isNewline ? " " : character)
            }
        }
        flush()
        return String(output.prefix(200))
    }
}
