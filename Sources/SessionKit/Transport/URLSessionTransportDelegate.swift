import Foundation
import SessionKitCore
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session-level delegate behind ``URLSessionTransport``.
///
/// It is session-level on purpose: on Linux, per-task delegates and the async redirect method are
/// ignored, so refusing redirects and capping the body only work here. Each exchange is keyed by
/// its task identifier and resumed exactly once, by whichever of completion, size cap or
/// cancellation comes first.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    typealias Continuation = CheckedContinuation<Result<HTTPResponse, TransportError>, Never>

    private enum Exchange {
        /// The caller cancelled before the exchange was registered; registering ends it at once.
        case cancelledEarly
        /// In flight, collecting the head and body.
        case running(Continuation, head: (status: Int, headers: [String: String])?, body: Data)
    }

    private let maximumResponseSize: Int
    private let exchanges = Locked<[Int: Exchange]>([:])

    init(maximumResponseSize: Int) {
        self.maximumResponseSize = maximumResponseSize
    }

    /// Registers an exchange; returns whether its task should be started.
    func register(_ identifier: Int, continuation: Continuation) -> Bool {
        let cancelledEarly = exchanges.withLock { exchanges -> Bool in
            if case .cancelledEarly = exchanges[identifier] {
                exchanges[identifier] = nil
                return true
            }
            exchanges[identifier] = .running(continuation, head: nil, body: Data())
            return false
        }
        if cancelledEarly {
            continuation.resume(returning: .failure(.cancelled))
        }
        return !cancelledEarly
    }

    /// Ends an exchange as cancelled, or marks it so that registering it ends it.
    func cancel(_ identifier: Int) {
        let continuation = exchanges.withLock { exchanges -> Continuation? in
            switch exchanges[identifier] {
            case .running(let continuation, _, _):
                exchanges[identifier] = nil
                return continuation
            case .cancelledEarly:
                return nil
            case nil:
                exchanges[identifier] = .cancelledEarly
                return nil
            }
        }
        continuation?.resume(returning: .failure(.cancelled))
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // The redirect itself is the answer the caller needs (an authorization code, a consent
        // page); following it would lose that answer.
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            finish(dataTask.taskIdentifier, with: .failure(.connectionFailed("not an HTTP response")))
            completionHandler(.cancel)
            return
        }
        if http.expectedContentLength > Int64(maximumResponseSize) {
            finish(dataTask.taskIdentifier, with: .failure(.responseTooLarge(limit: maximumResponseSize)))
            completionHandler(.cancel)
            return
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String {
                headers[name.lowercased()] = value
            }
        }
        exchanges.withLock { exchanges in
            if case .running(let continuation, _, let body) = exchanges[dataTask.taskIdentifier] {
                exchanges[dataTask.taskIdentifier] = .running(
                    continuation, head: (http.statusCode, headers), body: body)
            }
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let identifier = dataTask.taskIdentifier
        let limit = maximumResponseSize
        let overflowed = exchanges.withLock { exchanges -> Continuation? in
            guard case .running(let continuation, let head, var body) = exchanges[identifier] else {
                return nil
            }
            if body.count + data.count > limit {
                exchanges[identifier] = nil
                return continuation
            }
            // Drop the stored copy first so that appending does not copy the whole body.
            exchanges[identifier] = nil
            body.append(data)
            exchanges[identifier] = .running(continuation, head: head, body: body)
            return nil
        }
        if let overflowed {
            overflowed.resume(returning: .failure(.responseTooLarge(limit: limit)))
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let endpoint = Self.endpoint(of: task.originalRequest?.url)
        let identifier = task.taskIdentifier
        let outcome = exchanges.withLock { exchanges -> (Continuation, Result<HTTPResponse, TransportError>)? in
            guard case .running(let continuation, let head, let body) = exchanges[identifier] else {
                // Already answered (cancelled or oversized), or cancelled before it was
                // registered: in that case the mark stays for `register` to find.
                return nil
            }
            exchanges[identifier] = nil
            if let error {
                return (continuation, .failure(Self.transportError(for: error, endpoint: endpoint)))
            }
            guard let head else {
                return (continuation, .failure(.connectionFailed("no HTTP response from \(endpoint)")))
            }
            return (continuation, .success(HTTPResponse(status: head.status, headers: head.headers, body: body)))
        }
        if let (continuation, result) = outcome {
            continuation.resume(returning: result)
        }
    }

    private func finish(_ identifier: Int, with result: Result<HTTPResponse, TransportError>) {
        let continuation = exchanges.withLock { exchanges -> Continuation? in
            guard case .running(let continuation, _, _) = exchanges[identifier] else { return nil }
            exchanges[identifier] = nil
            return continuation
        }
        continuation?.resume(returning: result)
    }
}
