import Foundation
import SessionKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Records and device credentials with recognisable secrets, for store tests.
enum StoreFixtures {
    static func record(rotation: UInt64 = 1, revocations: Int = 0) -> CredentialRecord {
        CredentialRecord(
            session: StoredSession(
                refreshToken: Secret("refresh-\(rotation)"), issuer: "https://issuer.example", subject: "subject-1",
                audience: ["client-1"], rotation: rotation),
            pendingRevocations: (0..<revocations).map { Secret("revoke-\(rotation)-\($0)") })
    }

    /// Every field set, so a round trip that drops one fails.
    static let fullRecord = CredentialRecord(
        session: StoredSession(
            refreshToken: Secret("refresh-token-value"), pendingRefreshToken: Secret("pending-refresh-value"),
            accessToken: Secret("access-token-value"),
            accessTokenExpiresAt: Date(timeIntervalSince1970: 1_767_225_600.25), idToken: Secret("id-token-value"),
            issuer: "https://api.1pass.dev", subject: "user-42", audience: ["client-a", "client-b"], rotation: 7),
        pendingOperation: .deleteAccount,
        pendingRevocations: [Secret("old-refresh-1"), Secret("old-refresh-2")])

    static let device = DeviceCredential(deviceUUID: "6F1A2B3C-0000-4000-8000-000000000001", deviceSecret: Secret("device-secret-value"))

    /// Every secret value in ``fullRecord`` and ``device``.
    static let secretValues = [
        "refresh-token-value", "pending-refresh-value", "access-token-value", "id-token-value", "old-refresh-1",
        "old-refresh-2", "device-secret-value",
    ]
}

/// A fresh directory under the system temporary directory, removed by ``remove()``.
struct TemporaryDirectory {
    let path: String

    init() throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).resolvingSymlinksInPath().path
        var template = Array((base + "/sessionkit-store-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        path = String(cString: made)
    }

    var url: URL { URL(fileURLWithPath: path) }

    /// The store directory used by most tests: a child that does not exist yet.
    var storePath: String { path + "/store" }
    var storeURL: URL { URL(fileURLWithPath: storePath) }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `body` with a temporary directory that is removed afterwards.
func withTemporaryDirectory<Value>(_ body: (TemporaryDirectory) async throws -> Value) async throws -> Value {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    return try await body(directory)
}

enum Files {
    static func bytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func permissions(_ path: String) -> UInt32? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return UInt32(info.st_mode) & 0o7777
    }

    static func names(in directory: String) -> Set<String> {
        Set((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
    }

    static func exists(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path)
    }
}

/// Collects string events from any thread, to be awaited in order.
final class EventLog: Sendable {
    let stream: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    func record(_ event: String) {
        continuation.yield(event)
    }
}
