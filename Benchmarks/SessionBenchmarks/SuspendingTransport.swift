import Dispatch
import SessionKit

/// The transport every benchmark refresh goes through, the sessions' and the floors' alike: the
/// simulated provider behind the suspension a real transport has.
///
/// What it models: `URLSessionTransport` hands the request to the URL loading system and parks the
/// calling task on a continuation; the answer arrives on another thread (URLSession's delegate
/// queue, libcurl's thread on Linux), which resumes the continuation, and the task is scheduled
/// again on the global executor. Here a serial dispatch queue stands for that thread: `send` parks
/// the task on a continuation, the queue resumes it from its own thread, and only then does the
/// simulated provider answer (its RS256 signature included). The suspension is real: the task
/// leaves its thread, another thread wakes to resume it, and the task waits to be scheduled again,
/// which is the hand-over every refresh pays in an app. It is not `Task.yield()`, which re-enqueues
/// a task that never parked and that nothing else has to wake.
struct SuspendingTransport<Base: HTTPTransport>: HTTPTransport {
    let base: Base
    /// Stands for the thread that delivers URLSession's answers.
    private let network = DispatchQueue(label: "SessionBenchmarks.network")

    init(_ base: Base) {
        self.base = base
    }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            network.async { continuation.resume() }
        }
        return try await base.send(request)
    }
}
