import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct RawClientError: Error, Equatable {
    var call: String
    var code: Int32
}

/// A bare TCP client on 127.0.0.1 that sends exactly the bytes a test gives it, well-formed or
/// hostile, and reads whatever comes back until the server closes the connection.
///
/// Reading blocks, so it runs on a thread of its own and reports through a continuation: the
/// tests never park a concurrency-pool thread or sleep.
final class RawLoopbackClient: Sendable {
    let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Connects to 127.0.0.1:`port`.
    static func connect(to port: UInt16) throws(RawClientError) -> RawLoopbackClient {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw RawClientError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            systemClose(descriptor)
            throw RawClientError(call: "connect", code: code)
        }
        return RawLoopbackClient(descriptor: descriptor)
    }

    /// Whether nothing listens on 127.0.0.1:`port` any more.
    static func isRefused(_ port: UInt16) -> Bool {
        do {
            try connect(to: port).close()
            return false
        } catch {
            return error == RawClientError(call: "connect", code: ECONNREFUSED)
        }
    }

    /// Sends one whole request and returns the whole response, as a browser would see it.
    static func exchange(_ request: String, port: UInt16) async throws -> String {
        let client = try connect(to: port)
        defer { client.close() }
        client.send(request)
        return String(decoding: await client.readToEnd(), as: UTF8.self)
    }

    /// Writes the bytes (best effort: a server that closed the connection ends the write).
    func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { systemSend(descriptor, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            offset += written
        }
    }

    func send(_ text: String) {
        send(Array(text.utf8))
    }

    /// Everything the server sends until it closes the connection (or resets it).
    func readToEnd() async -> [UInt8] {
        let descriptor = self.descriptor
        return await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8], Never>) in
            Thread {
                var received: [UInt8] = []
                var scratch = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = systemRead(descriptor, &scratch, scratch.count)
                    if count < 0 && errno == EINTR { continue }
                    guard count > 0 else { break }
                    received += scratch[0..<count]
                }
                continuation.resume(returning: received)
            }.start()
        }
    }

    func close() {
        systemClose(descriptor)
    }
}

// The client's own `connect`, `send` and `close` shadow the C functions inside the type.
private func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(descriptor, address, length)
}
private func systemClose(_ descriptor: Int32) {
    _ = close(descriptor)
}
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
private func systemSend(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Darwin)
        send(descriptor, buffer, count, 0)
    #else
        send(descriptor, buffer, count, Int32(MSG_NOSIGNAL))
    #endif
}
