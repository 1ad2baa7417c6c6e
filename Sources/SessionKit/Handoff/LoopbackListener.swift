import Foundation
import SessionKitCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A listening socket on 127.0.0.1 for one handoff, served by one thread of its own.
///
/// The thread multiplexes the listener and every accepted connection with `poll(2)` on
/// non-blocking sockets, so a client that connects and never finishes its request (a slow loris,
/// a browser's speculative connection) holds nothing up. Each request head is parsed strictly and
/// handed to the `answer` closure: a refused request gets its status and its connection is closed,
/// while listening goes on; the first accepted request gets the page, and then every socket is
/// closed and the head is the outcome. Cancelling the awaiting task (the session's handoff
/// timeout, a sign-out) wakes the thread through a pipe, and it closes every socket the same way.
/// Blocking calls stay on that thread, off the Swift concurrency pool.
final class LoopbackListener: Sendable {
    /// What to do with one well-formed request head.
    enum Answer: Sendable, Equatable {
        /// This is the callback: send these response bytes, then end.
        case accept([UInt8])
        /// Not the callback: send these response bytes, close the connection, keep listening.
        case refuse([UInt8])
    }

    private enum Phase {
        case bound
        case serving
        case closed
    }

    private struct State {
        var phase = Phase.bound
        var outcome: Result<LoopbackRequestHead, HandoffError>?
        var waiter: CheckedContinuation<Result<LoopbackRequestHead, HandoffError>, Never>?
    }

    private struct Connection {
        var descriptor: Int32
        var buffer: [UInt8] = []
    }

    /// Connections held open at once; the oldest is dropped for a newcomer beyond this.
    static let maximumConnections = 16

    /// The port the listener is bound to.
    let port: UInt16
    private let listener: Int32
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let state = Locked(State())

    /// Binds 127.0.0.1:`port` (0: an ephemeral port the system picks) and listens.
    init(port: UInt16) throws(HandoffError) {
        let socketType: Int32
        #if canImport(Darwin)
            socketType = SOCK_STREAM
        #else
            socketType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #endif
        let listener = socket(AF_INET, socketType, 0)
        guard listener >= 0 else { throw Self.failure("socket", errno) }
        do throws(HandoffError) {
            try Self.prepare(listener)
            var reuse: Int32 = 1
            // Lets a fixed port be bound again right after an earlier attempt's connections linger
            // in TIME_WAIT; it never lets two listeners share the port.
            setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let code = errno
                if code == EADDRINUSE { throw .presentationFailed("port \(port) on 127.0.0.1 is already in use") }
                throw Self.failure("bind", code)
            }
            guard listen(listener, 64) == 0 else { throw Self.failure("listen", errno) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
            }
            guard named == 0 else { throw Self.failure("getsockname", errno) }
            self.port = UInt16(bigEndian: address.sin_port)
            (wakeReader, wakeWriter) = try Self.makePipe()
        } catch {
            _ = systemClose(listener)
            throw error
        }
        self.listener = listener
    }

    deinit {
        close()
    }

    /// Starts the serving thread; `answer` judges each well-formed request head.
    func start(_ answer: @escaping @Sendable (LoopbackRequestHead) -> Answer) {
        let starts = state.withLock { state -> Bool in
            guard state.phase == .bound else { return false }
            state.phase = .serving
            return true
        }
        guard starts else { return }
        let thread = Thread { [self] in
            var connections: [Connection] = []
            let outcome = serve(answer, &connections)
            finish(outcome, connections)
        }
        thread.name = "SessionKit loopback listener"
        thread.start()
    }

    /// Waits for the accepted request's head.
    ///
    /// Throws ``HandoffError/cancelled`` when the task is cancelled (every socket is then closed),
    /// and ``HandoffError/presentationFailed(_:)`` when the sockets fail.
    func callback() async throws(HandoffError) -> LoopbackRequestHead {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<LoopbackRequestHead, HandoffError>, Never>) in
                let ready = state.withLock { state -> Result<LoopbackRequestHead, HandoffError>? in
                    if let outcome = state.outcome { return outcome }
                    if state.phase == .bound { return .failure(.presentationFailed("the loopback listener was never started")) }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            close()
        }
        return try result.get()
    }

    /// Ends listening and returns once every socket is closed.
    func stop() async {
        close()
        _ = try? await callback()
    }

    /// Ends listening: closes every socket now, or wakes the serving thread to do so. Idempotent.
    func close() {
        let closeHere = state.withLock { state -> Bool in
            switch state.phase {
            case .bound:
                state.phase = .closed
                state.outcome = .failure(.cancelled)
                return true
            case .serving:
                // Under the lock: the thread marks itself closed under it before closing the pipe.
                var byte: UInt8 = 1
                _ = systemWrite(wakeWriter, &byte, 1)
                return false
            case .closed:
                return false
            }
        }
        if closeHere { closeSockets() }
    }

    // MARK: Serving thread

    private func finish(_ outcome: Result<LoopbackRequestHead, HandoffError>, _ connections: [Connection]) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<LoopbackRequestHead, HandoffError>, Never>? in
            state.phase = .closed
            state.outcome = outcome
            defer { state.waiter = nil }
            return state.waiter
        }
        // The listener first: a client that sees its connection closed then finds the port closed too.
        closeSockets()
        for connection in connections { _ = systemClose(connection.descriptor) }
        waiter?.resume(returning: outcome)
    }

    private func closeSockets() {
        _ = systemClose(listener)
        _ = systemClose(wakeReader)
        _ = systemClose(wakeWriter)
    }

    /// Serves until the callback, a wake-up or a failure; leaves the open connections in `connections`.
    private func serve(
        _ answer: @Sendable (LoopbackRequestHead) -> Answer, _ connections: inout [Connection]
    ) -> Result<LoopbackRequestHead, HandoffError> {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            var descriptors = [
                pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0), pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            ]
            descriptors += connections.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failure(Self.failure("poll", errno))
            }
            if descriptors[0].revents != 0 { return .failure(.cancelled) }
            var closed: Set<Int32> = []
            for (index, descriptor) in descriptors.enumerated().dropFirst(2) where descriptor.revents != 0 {
                let connectionIndex = index - 2
                let count = systemRead(descriptor.fd, &scratch, scratch.count)
                if count < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) { continue }
                guard count > 0 else {
                    closed.insert(descriptor.fd)
                    continue
                }
                connections[connectionIndex].buffer += scratch[0..<count]
                let buffer = connections[connectionIndex].buffer
                guard let end = LoopbackRequestHead.end(in: buffer) else {
                    if buffer.count > LoopbackRequestHead.maximumSize {
                        Self.send(LoopbackResponse.refusal(431), to: descriptor.fd)
                        closed.insert(descriptor.fd)
                    }
                    continue
                }
                guard end <= LoopbackRequestHead.maximumSize, let head = try? LoopbackRequestHead.parse(buffer[0..<end]) else {
                    Self.send(LoopbackResponse.refusal(end > LoopbackRequestHead.maximumSize ? 431 : 400), to: descriptor.fd)
                    closed.insert(descriptor.fd)
                    continue
                }
                switch answer(head) {
                case .accept(let response):
                    Self.send(response, to: descriptor.fd)
                    return .success(head)
                case .refuse(let response):
                    Self.send(response, to: descriptor.fd)
                    closed.insert(descriptor.fd)
                }
            }
            if !closed.isEmpty {
                for descriptor in closed { _ = systemClose(descriptor) }
                connections.removeAll { closed.contains($0.descriptor) }
            }
            if descriptors[1].revents != 0 {
                acceptPending(into: &connections)
            }
        }
    }

    private func acceptPending(into connections: inout [Connection]) {
        while true {
            let accepted = accept(listener, nil, nil)
            if accepted < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            do {
                try Self.prepare(accepted)
            } catch {
                _ = systemClose(accepted)
                continue
            }
            if connections.count >= Self.maximumConnections {
                // A flood of idle connections must not lock the browser out: the newest one is
                // the likeliest to carry the callback.
                _ = systemClose(connections.removeFirst().descriptor)
            }
            connections.append(Connection(descriptor: accepted))
        }
    }

    // MARK: System calls

    /// Writes what fits at once; a response is a few hundred bytes, far below any socket buffer,
    /// and a client that does not read it loses nothing the handoff needs.
    private static func send(_ bytes: [UInt8], to descriptor: Int32) {
        #if canImport(Darwin)
            let flags: Int32 = 0
        #else
            let flags = Int32(MSG_NOSIGNAL)
        #endif
        _ = bytes.withUnsafeBytes { systemSend(descriptor, $0.baseAddress, $0.count, flags) }
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Makes a socket non-blocking and close-on-exec (and, on Darwin, free of SIGPIPE), so a browser
    /// launched while it is open inherits nothing.
    private static func prepare(_ descriptor: Int32) throws(HandoffError) {
        let flags = fcntl(descriptor, F_GETFL)
        guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0, fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0 else {
            throw failure("fcntl", errno)
        }
        #if canImport(Darwin)
            var one: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    private static func makePipe() throws(HandoffError) -> (Int32, Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw failure("pipe", errno) }
        do throws(HandoffError) {
            try prepare(ends[0])
            try prepare(ends[1])
        } catch {
            _ = systemClose(ends[0])
            _ = systemClose(ends[1])
            throw error
        }
        return (ends[0], ends[1])
    }

    private static func failure(_ call: String, _ code: Int32) -> HandoffError {
        .presentationFailed("the loopback listener failed: \(call): \(String(cString: strerror(code)))")
    }
}

// The listener's `close()` and `send(_:to:)` shadow the C functions inside the type; these reach them.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
private func systemSend(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int, _ flags: Int32) -> Int {
    send(descriptor, buffer, count, flags)
}
