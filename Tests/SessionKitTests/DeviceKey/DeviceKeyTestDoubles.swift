import Foundation
import SessionKit
import SessionKitTesting
import Synchronization

/// A device-credential store in memory that counts writes and can fail on demand.
actor MemoryDeviceStore: DeviceCredentialStore {
    private(set) var device: DeviceCredential?
    private(set) var saveCount = 0
    private(set) var removeCount = 0
    private var failingSaves: [CredentialStoreError] = []

    init(_ device: DeviceCredential? = nil) {
        self.device = device
    }

    func failNextSave(with error: CredentialStoreError) {
        failingSaves.append(error)
    }

    func loadDevice() async throws(CredentialStoreError) -> DeviceCredential? {
        device
    }

    func saveDevice(_ credential: DeviceCredential) async throws(CredentialStoreError) {
        if !failingSaves.isEmpty { throw failingSaves.removeFirst() }
        saveCount += 1
        device = credential
    }

    func removeDevice() async throws(CredentialStoreError) {
        removeCount += 1
        device = nil
    }
}

/// A transport that answers from a fixed list and records what it was sent.
final class ScriptedTransport: HTTPTransport {
    private let state: Locked<(responses: [HTTPResponse], requests: [HTTPRequest])>

    init(_ responses: [HTTPResponse]) {
        state = Locked((responses, []))
    }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        let next = state.withLock { state -> HTTPResponse? in
            state.requests.append(request)
            return state.responses.isEmpty ? nil : state.responses.removeFirst()
        }
        guard let next else { throw .connectionFailed("no scripted response") }
        return next
    }

    static func json(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }
}

/// Hands out "device-1", "device-2", … so tests can tell bootstraps apart.
final class SequentialUUIDs: Sendable {
    private let counter = Locked(0)

    func next() -> String {
        counter.withLock { value in
            value += 1
            return "device-\(value)"
        }
    }
}

/// Suspends until `condition` holds, checked now and after every change `feed` reports.
func waitUntil(_ feed: SessionChangeFeed, _ condition: () async -> Bool) async {
    let signal = ChangeSignal()
    signal.watch(feed)
    await signal.wait(until: condition)
}
