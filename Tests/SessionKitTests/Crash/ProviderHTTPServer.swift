import Foundation
import SessionKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 server on 127.0.0.1 that hands every request to an async handler: how child
/// processes reach a provider living in the test process, whose state outlives every child.
///
/// One request per connection (`Connection: close`). A thread per connection reads the request
/// (blocking reads stay off the concurrency pool); a task runs the handler and writes the answer.
/// A write to a peer that died meanwhile fails quietly.
final class ProviderHTTPServer: Sendable {
    struct Failure: Error, Equatable {
        var call: String
        var code: Int32
    }

    private struct State {
        var stopped = false
        var connections: Set<Int32> = []
    }

    let port: UInt16
    private let listener: Int32
    private let state = Locked(State())
    private let acceptLoopEnded = DispatchSemaphore(value: 0)

    /// Binds a free loopback port; nothing is served before ``start(_:)``.
    init() throws {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 && listen(descriptor, 128) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw Failure(call: "bind", code: code)
        }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    /// `http://127.0.0.1:<port>`, the origin every request is answered under.
    var origin: String { "http://127.0.0.1:\(port)" }

    /// Starts accepting; each request's URL is rebuilt under ``origin``.
    func start(_ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        Thread { [self] in
            acceptLoop(handler)
            acceptLoopEnded.signal()
        }.start()
    }

    /// Stops accepting, wakes every connection still reading, and waits for the accept thread.
    func stop() {
        let alreadyStopped = state.withLock { state -> Bool in
            if state.stopped { return true }
            state.stopped = true
            for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
            shutdown(listener, Int32(SHUT_RDWR))
            return false
        }
        guard !alreadyStopped else { return }
        acceptLoopEnded.wait()
        close(listener)
    }

    private func acceptLoop(_ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.insert(connection)
                return true
            }
            guard admitted else {
                close(connection)
                return
            }
            Thread { [self] in serve(connection, handler) }.start()
        }
    }

    private func serve(_ connection: Int32, _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse) {
        guard let request = Self.readRequest(from: connection, origin: origin) else {
            finish(connection)
            return
        }
        Task {
            let response = await handler(request)
            _ = LoopbackHTTPServer.writeAll(Self.encode(response), to: connection)
            finish(connection)
        }
    }

    private func finish(_ connection: Int32) {
        // Leaving the set first: stop() only shuts down descriptors that are still open.
        state.withLock { _ = $0.connections.remove(connection) }
        close(connection)
    }

    private static func encode(_ response: HTTPResponse) -> Data {
        var head = "HTTP/1.1 \(response.status) \(response.status < 400 ? "OK" : "Error")\r\n"
        for (name, value) in response.headers where name.lowercased() != "content-length" && name.lowercased() != "connection" {
            head += "\(name): \(value)\r\n"
        }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        return Data(head.utf8) + response.body
    }

    /// Reads one request with the loopback test server's reader and addresses it to `origin`.
    private static func readRequest(from connection: Int32, origin: String) -> HTTPRequest? {
        guard let received = LoopbackHTTPServer.readRequest(from: connection), received.target.hasPrefix("/"),
            let url = URL(string: origin + received.target)
        else { return nil }
        return HTTPRequest(
            method: received.method, url: url, headers: received.headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) },
            body: received.body.isEmpty ? nil : received.body)
    }
}
