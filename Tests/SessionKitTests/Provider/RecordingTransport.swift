import Foundation
import SessionKit
import Synchronization

/// A fake provider at the transport seam: answers each request from a swappable responder and
/// records every request, in order.
///
/// It can also hold requests at a latch, so a test can keep a fetch in flight while it lines up
/// concurrent callers, and it lets a test wait (without sleeping) until a number of requests arrived.
final class RecordingTransport: HTTPTransport {
    typealias Responder = @Sendable (HTTPRequest) -> Result<HTTPResponse, TransportError>

    private struct State {
        var responder: Responder
        var requests: [HTTPRequest] = []
        var isHeld = false
        var held: [CheckedContinuation<Void, Never>] = []
        var requestWatches: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state: Locked<State>

    init(_ responder: @escaping Responder) {
        state = Locked(State(responder: responder))
    }

    /// Answers every request with the same response.
    convenience init(always response: HTTPResponse) {
        self.init { _ in .success(response) }
    }

    /// Every request received so far, in order.
    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    /// Replaces how later requests are answered.
    func respond(_ responder: @escaping Responder) {
        state.withLock { $0.responder = responder }
    }

    /// From now on, requests wait at the latch until ``release()``.
    func hold() {
        state.withLock { $0.isHeld = true }
    }

    /// Lets every held request (and every later one) through.
    func release() {
        let waiting = state.withLock { state in
            state.isHeld = false
            defer { state.held = [] }
            return state.held
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Returns once at least `count` requests have arrived (held ones included).
    func waitForRequests(count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = state.withLock { state in
                if state.requests.count >= count { return true }
                state.requestWatches.append((count, continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let (ready, isHeld) = state.withLock { state in
            state.requests.append(request)
            let count = state.requests.count
            let ready = state.requestWatches.filter { $0.count <= count }.map(\.continuation)
            state.requestWatches.removeAll { $0.count <= count }
            return (ready, state.isHeld)
        }
        for continuation in ready { continuation.resume() }
        if isHeld {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let stillHeld = state.withLock { state in
                    guard state.isHeld else { return false }
                    state.held.append(continuation)
                    return true
                }
                if !stillHeld { continuation.resume() }
            }
        }
        let responder = state.withLock { $0.responder }
        return try responder(request).get()
    }
}

extension HTTPResponse {
    /// A JSON response.
    static func json(_ status: Int, _ body: String, headers: [String: String] = [:]) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: headers.merging(["Content-Type": "application/json"]) { own, _ in own }, body: Data(body.utf8))
    }
}

extension HTTPRequest {
    /// The body as text, for exact comparisons of form bodies.
    var bodyText: String? {
        body.map { String(decoding: $0, as: UTF8.self) }
    }
}
