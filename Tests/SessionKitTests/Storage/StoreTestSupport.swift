import Foundation
import SessionKit
import SessionKitTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Records and device credentials with recognisable secrets, for store tests.
enum StoreFixtures {
    /// A session with its DPoP key, as ``StoreEnvelopeFixture/schemaTwoRecord`` holds it.
    static let dpopRecord = CredentialRecord(
        session: StoredSession(
            refreshToken: Secret("refresh-value"), issuer: "https://issuer.example", subject: "s", audience: ["c"], rotation: 3,
            dpopKey: StoredDPoPKey(
                placement: .record, thumbprint: "jkt-value", x: "x-value", y: "y-value", privateScalar: Secret("scalar-value"),
                tokensAreBound: true)))

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
            issuer: "https://api.1pass.dev", subject: "user-42", audience: ["client-a", "client-b"], rotation: 7,
            canonicalSubject: "user-1", linkedSubjects: ["user-42", "user-7"], isAnonymous: false),
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

/// A one-shot signal: tasks wait until it is opened.
final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// Counts the tasks that asked for a lease, so that its first holder can wait, inside it, until
/// every other task contends for it: the lease, not luck, keeps them out.
final class LeaseContenders: Sendable {
    private let arrived = Locked(0)
    private let signal = ChangeSignal()

    /// Called by each task right before it asks for the lease.
    func arrive() {
        arrived.withLock { $0 += 1 }
        signal.notify()
    }

    /// Suspends until `count` tasks have asked for the lease.
    func waitForAll(_ count: Int) async {
        await signal.wait { arrived.withLock { $0 } >= count }
    }
}

/// Counts how many tasks are inside a critical section and the most ever seen at once.
final class OccupancyMeter: Sendable {
    private let state = Locked((current: 0, maximum: 0))

    func enter() {
        state.withLock { state in
            state.current += 1
            state.maximum = max(state.maximum, state.current)
        }
    }

    func leave() {
        state.withLock { $0.current -= 1 }
    }

    var maximum: Int { state.withLock { $0.maximum } }
}

/// Suspends until `condition` holds, letting other tasks run in between.
///
/// For states a test cannot be called back about (a task parked in a lock's queue); it ends as soon
/// as the state is reached, it does not wait for a guessed amount of time.
func waitUntil(_ lease: LeaseKeeper, _ condition: () -> Bool) async {
    let signal = ChangeSignal()
    signal.watch(lease.changes)
    await signal.wait(until: condition)
}
