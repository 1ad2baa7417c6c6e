import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting

/// The floor of a refresh: the least any client does to refresh, on the same transport and the
/// same kind of store as the session it is read against.
///
/// One bare refresh is one suspension (the ``SuspendingTransport``'s), the simulated provider's work
/// with its RS256 signature, one RS256 verification of the id_token with the provider's key, and
/// one durable write of the updated record (`FileCredentialStore.save`). Nothing else: no lease,
/// no read of the store, no claim checks, no state machine, no key-set cache; the response is
/// scanned for the three tokens it needs, with no JSON parser.
///
/// It keeps a refresh-token chain of its own (the provider rotates refresh tokens), started by
/// signing a session of its own in and taking the record that session stored.
struct BareRefresh {
    private let wiring: BenchmarkSession
    private let key: RSAPublicKey
    private var record: CredentialRecord
    private(set) var checksum = 0

    /// Signs `wiring`'s session in and shuts it down: from then on only this floor uses its
    /// transport, its store and its chain. To read a session against it, give it a wiring
    /// ``BenchmarkSession/init(beside:)`` that session's.
    static func make(on wiring: BenchmarkSession) async throws -> BareRefresh {
        try await wiring.signIn()
        await wiring.session.shutdown()
        let record = try await wiring.store.load()
        guard record.session?.refreshToken != nil else { throw BenchmarkFailure("the floor's sign-in stored no refresh token") }
        return BareRefresh(wiring: wiring, key: try SimulatedProviderKeys.shared(count: 1)[0].publicKey, record: record)
    }

    private init(wiring: BenchmarkSession, key: RSAPublicKey, record: CredentialRecord) {
        self.wiring = wiring
        self.key = key
        self.record = record
    }

    /// One bare refresh.
    mutating func refresh() async throws {
        guard var session = record.session, let refreshToken = session.refreshToken else {
            throw BenchmarkFailure("the floor lost its refresh token")
        }
        let provider = wiring.configuration.provider
        let request = HTTPRequest(
            method: "POST", url: provider.tokenEndpoint,
            headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")],
            body: Data("grant_type=refresh_token&refresh_token=\(refreshToken.value)&client_id=\(provider.clientID)".utf8))
        let response = try await wiring.transport.send(request)
        let body = [UInt8](response.body)
        guard response.status == 200,
            let idToken = Self.string("id_token", in: body),
            let accessToken = Self.string("access_token", in: body),
            let rotated = Self.string("refresh_token", in: body)
        else { throw BenchmarkFailure("the floor's refresh was answered \(response.status)") }
        guard let dot = idToken.lastIndex(of: UInt8(ascii: ".")),
            key.verifyRS256(
                signature: try Base64URL.decode(String(decoding: idToken[(dot + 1)...], as: UTF8.self)), message: Array(idToken[..<dot]))
        else { throw BenchmarkFailure("the floor's id_token did not verify") }
        session.refreshToken = Secret(String(decoding: rotated, as: UTF8.self))
        session.accessToken = Secret(String(decoding: accessToken, as: UTF8.self))
        session.idToken = Secret(String(decoding: idToken, as: UTF8.self))
        session.rotation += 1
        record.session = session
        try await wiring.store.save(record)
        checksum &+= idToken.count
    }

    /// Removes the floor's store.
    func finish() async {
        await wiring.finish()
    }

    /// The bytes of the JSON string member `name` (`"name":"…"`), which in a token response holds
    /// no escape.
    private static func string(_ name: String, in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        let key = Array("\"\(name)\"".utf8)
        guard let start = bytes.firstRange(of: key)?.upperBound else { return nil }
        var index = start
        while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: ":") { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        guard let end = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return bytes[(index + 1)..<end]
    }
}
