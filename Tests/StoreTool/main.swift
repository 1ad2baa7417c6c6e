// A child process for the store's cross-process and crash tests. It speaks one line per event on
// standard output, so the test can act at exact points without sleeping:
//
//   hold  DIR        take the lease, print "held", keep it until standard input closes, print "released"
//   count DIR N      N times: under the lease, load, add one to the session's rotation, save; print "done"
//   churn DIR        forever: save a record with the next rotation, print "saved R" once it is durable
//   crash DIR        print "crashing", then write through a bad pointer: a segmentation fault, so a
//                    test can check that a crashing child's backtrace reaches its failure report
//
// Every store error is printed as "error <case>" with exit status 2.
import Foundation
import SessionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let count = bytes[offset...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
        if count <= 0 { exit(3) }
        offset += count
    }
}

func fail(_ error: any Error) -> Never {
    emit("error \(error)")
    exit(2)
}

func session(rotation: UInt64, revocations: Int) -> CredentialRecord {
    CredentialRecord(
        session: StoredSession(
            refreshToken: Secret("refresh-\(rotation)"), accessToken: Secret("access-\(rotation)"),
            issuer: "https://issuer.example", subject: "subject", audience: ["client"], rotation: rotation),
        pendingRevocations: (0..<revocations).map { Secret("revoke-\(rotation)-\($0)") })
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    emit("usage: SessionKitStoreTool hold|count|churn|crash DIR [N]")
    exit(64)
}
let store = FileCredentialStore(directory: URL(fileURLWithPath: arguments[2]))

do {
    switch arguments[1] {
    case "hold":
        try await store.withLease {
            emit("held")
            var buffer = [UInt8](repeating: 0, count: 64)
            while buffer.withUnsafeMutableBytes({ read(0, $0.baseAddress, $0.count) }) > 0 {}
        }
        emit("released")
    case "count":
        guard arguments.count == 4, let rounds = Int(arguments[3]) else { exit(64) }
        for _ in 0..<rounds {
            try await store.withLease {
                let record = try await store.load()
                let next = (record.session?.rotation ?? 0) + 1
                try await store.save(session(rotation: next, revocations: 0))
            }
        }
        emit("done")
    case "churn":
        var rotation = try await store.load().session?.rotation ?? 0
        while true {
            rotation += 1
            // Varying sizes make a torn write show up as a length or checksum failure.
            try await store.save(session(rotation: rotation, revocations: Int(rotation % 7) * 3))
            if rotation % 5 == 0 {
                try await store.saveDevice(DeviceCredential(deviceUUID: "device", deviceSecret: Secret("secret-\(rotation)")))
            }
            emit("saved \(rotation)")
        }
    case "crash":
        emit("crashing")
        let invalid = UnsafeMutablePointer<Int>(bitPattern: 8)
        invalid?.pointee = 1
        emit("still running")
        exit(1)
    default:
        exit(64)
    }
} catch {
    fail(error)
}
