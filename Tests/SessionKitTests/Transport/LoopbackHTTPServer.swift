import Foundation
import SessionKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A request as the loopback server read it off the socket.
struct ReceivedRequest: Sendable {
    var method: String
    /// The request target: path and query, exactly as sent.
    var target: String
    /// Header fields with lower-cased names.
    var headers: [String: String]
    var body: Data
}

/// What the loopback server does with one request.
enum CannedReply: Sendable {
    /// Writes these bytes (a whole HTTP response) and closes the connection.
    case raw(Data)
    /// Writes a head without `Content-Length`, then `count` copies of `chunk`, then closes: a body
    /// whose size the client learns only by reading it.
    case stream(head: Data, chunk: Data, count: Int)
    /// Never answers; waits until the client gives up and closes the connection.
    case hang

    /// A complete response with `Content-Length` and `Connection: close`.
    static func response(
        _ status: Int, _ reason: String, headers: [(String, String)] = [], body: Data = Data()
    ) -> CannedReply {
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return .raw(Data(head.utf8) + body)
    }
}

/// What a test can observe about the server's traffic.
struct ServerActivity: Sendable {
    var requests: [ReceivedRequest] = []
    /// Connections the client closed while the server was still waiting on them.
    var connectionsClosedByClient = 0
}

struct LoopbackServerError: Error, Equatable {
    var call: String
    var code: Int32
}

/// A minimal blocking HTTP/1.1 server on 127.0.0.1, one thread per connection, for testing the
/// real transport against real sockets without leaving the machine.
final class LoopbackHTTPServer: Sendable {
    let port: UInt16

    private struct State {
        var stopped = false
        var connections: Set<Int32> = []
        var activity = ServerActivity()
        var watchers: [(predicate: @Sendable (ServerActivity) -> Bool, CheckedContinuation<Void, Never>)] = []

        mutating func takeSatisfiedWatchers() -> [CheckedContinuation<Void, Never>] {
            var satisfied: [CheckedContinuation<Void, Never>] = []
            let activity = self.activity
            watchers.removeAll { watcher in
                guard watcher.predicate(activity) else { return false }
                satisfied.append(watcher.1)
                return true
            }
            return satisfied
        }
    }

    private let listener: Int32
    private let handler: @Sendable (ReceivedRequest) -> CannedReply
    private let state = Locked(State())
    private let acceptLoopEnded = DispatchSemaphore(value: 0)

    /// Starts listening on a free loopback port.
    init(_ handler: @escaping @Sendable (ReceivedRequest) -> CannedReply) throws {
        self.handler = handler
        (listener, port) = try Self.bindLoopback()
        guard listen(listener, 64) == 0 else {
            let code = errno
            close(listener)
            throw LoopbackServerError(call: "listen", code: code)
        }
        Thread { [self] in
            acceptLoop()
            acceptLoopEnded.signal()
        }.start()
    }

    /// The URL of a path on this server.
    func url(_ pathAndQuery: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")!
    }

    /// A snapshot of what the server has seen so far.
    var activity: ServerActivity { state.withLock { $0.activity } }

    /// Returns once the server's activity satisfies `predicate`.
    func waitUntil(_ predicate: @escaping @Sendable (ServerActivity) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let satisfied = state.withLock { state -> Bool in
                if predicate(state.activity) { return true }
                state.watchers.append((predicate, continuation))
                return false
            }
            if satisfied { continuation.resume() }
        }
    }

    /// Stops accepting, wakes every connection thread, and waits for the accept thread to end.
    func stop() {
        let alreadyStopped = state.withLock { state -> Bool in
            if state.stopped { return true }
            state.stopped = true
            // Connection threads close their own sockets, and only after leaving the set, so
            // every descriptor here is still open while the lock is held.
            for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
            shutdown(listener, Int32(SHUT_RDWR))
            return false
        }
        guard !alreadyStopped else { return }
        acceptLoopEnded.wait()
        close(listener)
    }

    /// Runs `body` with a fresh server and stops the server afterwards, even when `body` throws.
    static func withServer<T>(
        _ handler: @escaping @Sendable (ReceivedRequest) -> CannedReply,
        _ body: (LoopbackHTTPServer) async throws -> T
    ) async throws -> T {
        let server = try LoopbackHTTPServer(handler)
        defer { server.stop() }
        return try await body(server)
    }

    /// A loopback port that nothing listens on: bound once to learn a free number, then released.
    /// A loopback port nothing listens on, from `ports`: below the ephemeral range (and apart from
    /// the presenter tests' 23000–23199), where no other test's listener (all of which let the
    /// system pick) can be given it between this check and its use. Tests that run side by side
    /// pass ranges of their own.
    static func unusedPort(in ports: Range<UInt16> = 23_400..<23_500) throws -> UInt16 {
        var lastError: (any Error)?
        for port in ports {
            do {
                let (socket, _) = try bindLoopback(port: port)
                close(socket)
                return port
            } catch {
                lastError = error
            }
        }
        throw lastError ?? LoopbackServerError(call: "bind", code: EADDRINUSE)
    }

    private static func bindLoopback(port: UInt16 = 0) throws -> (Int32, UInt16) {
        #if canImport(Glibc)
            let socketType = Int32(SOCK_STREAM.rawValue)
        #else
            let socketType = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, socketType, 0)
        guard descriptor >= 0 else { throw LoopbackServerError(call: "socket", code: errno) }
        var reuse: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            close(descriptor)
            throw LoopbackServerError(call: "bind", code: code)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else {
            let code = errno
            close(descriptor)
            throw LoopbackServerError(call: "getsockname", code: code)
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }

    private func acceptLoop() {
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
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer {
            state.withLock { _ = $0.connections.remove(connection) }
            close(connection)
        }
        guard let request = Self.readRequest(from: connection) else { return }
        let watchers = state.withLock { state in
            state.activity.requests.append(request)
            return state.takeSatisfiedWatchers()
        }
        for watcher in watchers { watcher.resume() }

        switch handler(request) {
        case .raw(let bytes):
            _ = Self.writeAll(bytes, to: connection)
        case .stream(let head, let chunk, let count):
            guard Self.writeAll(head, to: connection) else { return }
            for _ in 0..<count where !Self.writeAll(chunk, to: connection) { return }
        case .hang:
            var scratch = [UInt8](repeating: 0, count: 1024)
            while true {
                let count = read(connection, &scratch, scratch.count)
                if count > 0 { continue }
                if count < 0 && errno == EINTR { continue }
                let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                    // A read that ends because the server stopped is not the client's doing.
                    guard count == 0, !state.stopped else { return [] }
                    state.activity.connectionsClosedByClient += 1
                    return state.takeSatisfiedWatchers()
                }
                for watcher in watchers { watcher.resume() }
                return
            }
        }
    }

    /// Writes all of `data`, or returns false when the peer went away.
    static func writeAll(_ data: Data, to connection: Int32) -> Bool {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = send(connection, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// Reads one request: the head up to the blank line, then `Content-Length` bytes of body.
    static func readRequest(from connection: Int32) -> ReceivedRequest? {
        var bytes: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 4096)
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while headEnd == nil {
            let count = read(connection, &scratch, scratch.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0, bytes.count < 65_536 else { return nil }
            bytes += scratch[0..<count]
            headEnd = bytes.firstRange(of: terminator)?.upperBound
        }
        guard let headEnd, let head = String(bytes: bytes[0..<headEnd], encoding: .utf8) else { return nil }
        var lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        guard !lines.isEmpty else { return nil }
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count == 3 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var body = Array(bytes[headEnd...])
        while body.count < length {
            let count = read(connection, &scratch, scratch.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            body += scratch[0..<count]
        }
        return ReceivedRequest(
            method: String(requestLine[0]), target: String(requestLine[1]), headers: headers,
            body: Data(body.prefix(length)))
    }
}
