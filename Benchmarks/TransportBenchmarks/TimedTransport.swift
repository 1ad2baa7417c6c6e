import SessionKit

/// An ``HTTPTransport`` that passes every request on and records how long it took.
struct TimedTransport: HTTPTransport {
    var base: any HTTPTransport
    var phases: PhaseClock

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let start = phases.now
        defer { phases.add(.http, since: start) }
        return try await base.send(request)
    }
}
