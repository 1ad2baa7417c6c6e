import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``HTTPTransport``: real HTTP through `URLSession`, hardened for talking to an
/// identity provider.
///
/// - It uses an ephemeral configuration with no cookies and no cache, so nothing a provider sends
///   is written to disk.
/// - It never follows a redirect: a 3xx comes back as it is, because the authorization step and
///   several provider endpoints answer with a redirect that the caller must see.
/// - Each request has a deadline measured on the injected clock. URLSession's own timeout is an
///   idle timer truncated to whole seconds on Linux, so the deadline is enforced here instead.
/// - A response body larger than ``maximumResponseSize`` is refused while it streams in.
/// - Error messages name only the scheme, host and port, never a path or query (which may carry
///   an authorization code or a client's secrets).
public struct URLSessionTransport<C: Clock>: HTTPTransport where C.Duration == Duration {
    /// The longest a request may take, from sending until the whole body has arrived.
    public let deadline: Duration
    /// The largest response body, in bytes, that is accepted.
    public let maximumResponseSize: Int

    private let clock: C
    private let owner: URLSessionOwner

    /// Creates a transport with its own ephemeral `URLSession`.
    ///
    /// - Parameters:
    ///   - clock: The clock on which ``deadline`` is measured; tests pass a manual clock.
    ///   - deadline: The longest a request may take. Zero or less fails every request with
    ///     ``TransportError/timedOut`` before anything is sent.
    ///   - maximumResponseSize: The largest accepted body in bytes (1 MiB unless given); a
    ///     negative value counts as zero.
    public init(clock: C, deadline: Duration = .seconds(30), maximumResponseSize: Int = 1 << 20) {
        self.clock = clock
        self.deadline = deadline
        self.maximumResponseSize = max(0, maximumResponseSize)
        self.owner = URLSessionOwner(maximumResponseSize: self.maximumResponseSize)
    }

    /// Sends one request and returns the response, whatever its status.
    ///
    /// Throws ``TransportError/timedOut`` when the deadline passes first,
    /// ``TransportError/responseTooLarge(limit:)`` for an oversized body,
    /// ``TransportError/cancelled`` when the calling task is cancelled, and
    /// ``TransportError/connectionFailed(_:)`` for everything that kept a response from arriving.
    public func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        if Task.isCancelled { throw .cancelled }
        let urlRequest = try makeURLRequest(request)
        if deadline <= .zero { throw .timedOut }

        let result = await withTaskGroup(of: Contender.self) { group in
            group.addTask { .exchange(await self.exchange(urlRequest)) }
            group.addTask {
                do {
                    try await self.clock.sleep(for: self.deadline)
                    return .deadlinePassed
                } catch {
                    return .sleepInterrupted
                }
            }
            while let contender = await group.next() {
                switch contender {
                case .exchange(let outcome):
                    group.cancelAll()
                    return outcome
                case .deadlinePassed:
                    group.cancelAll()
                    return .failure(.timedOut)
                case .sleepInterrupted:
                    // Only the caller's cancellation interrupts the sleep; the exchange then
                    // reports it as cancelled, so its answer is the one to wait for.
                    continue
                }
            }
            return .failure(.cancelled)
        }
        return try result.get()
    }

    /// What finished first in the race between the exchange and the deadline.
    private enum Contender: Sendable {
        case exchange(Result<HTTPResponse, TransportError>)
        case deadlinePassed
        case sleepInterrupted
    }

    private func makeURLRequest(_ request: HTTPRequest) throws(TransportError) -> URLRequest {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            request.url.host != nil
        else {
            throw .connectionFailed("unsupported URL (only http and https with a host are sent)")
        }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        urlRequest.httpShouldHandleCookies = false
        // URLSession's idle timer is only a backstop behind the deadline enforced in `send`.
        urlRequest.timeoutInterval = Self.backstopTimeout(for: deadline)
        for header in request.headers {
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }
        urlRequest.httpBody = request.body
        return urlRequest
    }

    private static func backstopTimeout(for deadline: Duration) -> TimeInterval {
        let components = deadline.components
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return max(1, seconds.rounded(.up) + 1)
    }

    private func exchange(_ urlRequest: URLRequest) async -> Result<HTTPResponse, TransportError> {
        let task = owner.session.dataTask(with: urlRequest)
        let identifier = task.taskIdentifier
        let delegate = owner.delegate
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if delegate.register(identifier, continuation: continuation) {
                    task.resume()
                }
            }
        } onCancel: {
            delegate.cancel(identifier)
            task.cancel()
        }
    }
}

/// Owns the `URLSession` and invalidates it when the last transport copy is gone, since a
/// session keeps its delegate alive until it is invalidated.
private final class URLSessionOwner: Sendable {
    let session: URLSession
    let delegate: URLSessionTransportDelegate

    init(maximumResponseSize: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let delegate = URLSessionTransportDelegate(maximumResponseSize: maximumResponseSize)
        self.delegate = delegate
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }
}
