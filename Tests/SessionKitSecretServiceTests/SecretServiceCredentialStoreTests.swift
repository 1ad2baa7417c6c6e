import ChildProcessSupport
import Foundation
import Testing

@testable import SessionKit
@testable import SessionKitSecretService

/// Against a real Secret Service: `Scripts/test.sh` starts `gnome-keyring-daemon` in a D-Bus
/// session of its own and fails if this suite did not run.
@Suite(
    .enabled("needs a Secret Service on the session bus (Scripts/test.sh starts one)") { await KeyringFixture.isReachable() },
    .timeLimit(.minutes(1)))
struct SecretServiceCredentialStoreTests {
    @Test func anEmptyKeyringIsAnEmptyRecordAndARecordRoundTrips() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }

        #expect(try await fixture.store.load() == CredentialRecord())
        try await fixture.store.save(KeyringFixture.record)
        #expect(try await fixture.store.load() == KeyringFixture.record)
        #expect(
            try await SecretServiceCredentialStore(service: fixture.service, leaseDirectory: fixture.leaseDirectory).load()
                == KeyringFixture.record)
    }

    @Test func aRecordWithItsDPoPKeyRoundTripsAsSchemaTwo() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        var record = KeyringFixture.record
        record.session?.dpopKey = StoredDPoPKey(
            placement: .record, thumbprint: "jkt-value", x: "x-value", y: "y-value", privateScalar: Secret("scalar-value"),
            tokensAreBound: true)
        try await fixture.store.save(record)
        #expect(try await fixture.store.load() == record)
        let bytes = try secretToolBytes(["lookup", "service", fixture.service, "account", "credentials"])
        #expect(Array(bytes[12..<16]) == [0, 0, 0, 2])
    }

    @Test func aSaveReplacesTheWholeRecordInOneItem() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        try await fixture.store.save(KeyringFixture.record)

        try await fixture.store.save(KeyringFixture.record(rotation: 8))

        #expect(try await fixture.store.load() == KeyringFixture.record(rotation: 8))
        let items = try secretTool(["search", "--all", "service", fixture.service])
        // secret-tool prints one "[/path]" header per item found.
        #expect(items.split(separator: "\n").filter { $0.hasPrefix("[/") }.count == 1, "exactly one item holds the record")
    }

    @Test func theItemHoldsTheFramedRecordUnderTheDocumentedAttributes() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        try await fixture.store.save(KeyringFixture.record)

        // Another Secret Service client finds it by (service, account) and reads the store's frame.
        let bytes = try secretToolBytes(["lookup", "service", fixture.service, "account", "credentials"])

        #expect(bytes.starts(with: StoreEnvelope.magic + Array("CRED".utf8)))
        #expect(try StoredPayloadCodec.openRecord(bytes) == KeyringFixture.record)
    }

    @Test func theDeviceCredentialLivesInItsOwnItem() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        try await fixture.store.save(KeyringFixture.record)

        #expect(try await fixture.store.loadDevice() == nil)
        try await fixture.store.saveDevice(KeyringFixture.device)

        #expect(try await fixture.store.loadDevice() == KeyringFixture.device)
        let recordBytes = try #require(try SecretServiceItems.read(fixture.store.credentials))
        let deviceBytes = try #require(try SecretServiceItems.read(fixture.store.device))
        #expect(!String(decoding: recordBytes, as: UTF8.self).contains("device-secret-value"))
        #expect(String(decoding: deviceBytes.dropFirst(24), as: UTF8.self).contains("device-secret-value"))
        #expect(fixture.store.deviceService == fixture.service + ".device")

        try await fixture.store.removeDevice()
        try await fixture.store.removeDevice()
        #expect(try await fixture.store.loadDevice() == nil)
        #expect(try await fixture.store.load() == KeyringFixture.record, "removing the device leaves the record")
    }

    @Test func theImportTokenLedgerLivesInAnItemOfItsOwnAndOutlivesTheStore() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        try await fixture.store.save(KeyringFixture.record)
        let token = CredentialImportToken(UUID(uuidString: "00000000-0000-4000-8000-0000000000C1")!)
        let other = CredentialImportToken(UUID(uuidString: "00000000-0000-4000-8000-0000000000C2")!)

        let ledger = fixture.store.makeImportTokenLedger()
        #expect(try await ledger.contains(token) == false)
        #expect(try await ledger.markUsed(token))
        #expect(try await ledger.markUsed(token) == false, "a token is used once")

        // A new store over the same items (a relaunch) sees the mark; another token is unused.
        let relaunched = SecretServiceCredentialStore(service: fixture.service, leaseDirectory: fixture.leaseDirectory)
        #expect(try await relaunched.makeImportTokenLedger().contains(token))
        #expect(try await relaunched.makeImportTokenLedger().contains(other) == false)
        // The ledger is its own framed item; the credential record is untouched.
        let account = SecretServiceCredentialStore.importTokenLedgerAccount
        let bytes = try secretToolBytes(["lookup", "service", fixture.service, "account", account])
        #expect(bytes.starts(with: StoreEnvelope.magic + Array("CXIL".utf8)))
        #expect(try await fixture.store.load() == KeyringFixture.record)
    }

    @Test func theClientRegistrationLivesInAnItemOfItsOwnAndOutlivesASignOut() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        try await fixture.store.save(KeyringFixture.record)

        #expect(try await fixture.store.loadRegistration() == nil)
        try await fixture.store.saveRegistration(KeyringFixture.registration)
        #expect(try await fixture.store.loadRegistration() == KeyringFixture.registration)

        // Another Secret Service client finds it by (service, account) and reads the file store's frame.
        let account = SecretServiceCredentialStore.registrationAccount
        #expect(account == "registration")
        let bytes = try secretToolBytes(["lookup", "service", fixture.service, "account", account])
        #expect(bytes.starts(with: StoreEnvelope.magic + Array("CREG".utf8)))
        #expect(try StoredPayloadCodec.openRegistration(bytes) == KeyringFixture.registration)
        // The record's item holds neither the client secret nor the registration access token.
        let recordBytes = try #require(try SecretServiceItems.read(fixture.store.credentials))
        #expect(!String(decoding: recordBytes, as: UTF8.self).contains("client-secret-value"))
        #expect(!String(decoding: recordBytes, as: UTF8.self).contains("registration-token-value"))

        // A sign-out's wipe of the record leaves the registration; a new store (a relaunch) reads it.
        try await fixture.store.save(CredentialRecord())
        let relaunched = SecretServiceCredentialStore(service: fixture.service, leaseDirectory: fixture.leaseDirectory)
        #expect(try await relaunched.loadRegistration() == KeyringFixture.registration)

        try await relaunched.removeRegistration()
        try await relaunched.removeRegistration()
        #expect(try await fixture.store.loadRegistration() == nil)
    }

    @Test func aDamagedRegistrationItemIsATypedErrorAndStays() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        try await fixture.store.saveRegistration(KeyringFixture.registration)
        var bytes = try #require(try SecretServiceItems.read(fixture.store.keyring.registration))
        bytes[bytes.count - 40] ^= 0xFF
        try SecretServiceItems.write(bytes, to: fixture.store.keyring.registration)

        do {
            _ = try await fixture.store.loadRegistration()
            Issue.record("a damaged registration was read")
        } catch {
            guard case .corrupted = error else {
                Issue.record("expected corrupted, got \(error)")
                return
            }
        }
        #expect(try SecretServiceItems.read(fixture.store.keyring.registration) == bytes, "the damaged item is left for inspection")
    }

    @Test func theGuestCredentialLivesInAnItemOfItsOwn() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        try await fixture.store.save(KeyringFixture.record)
        try await fixture.store.saveDevice(KeyringFixture.device)
        let guest = GuestCredential(deviceID: "guest-device", deviceSecret: Secret("guest-secret-value"))

        #expect(try await fixture.store.loadGuest() == nil)
        try await fixture.store.saveGuest(guest)

        #expect(try await fixture.store.loadGuest() == guest)
        let guestBytes = try #require(try SecretServiceItems.read(fixture.store.guest))
        #expect(guestBytes.starts(with: StoreEnvelope.magic + Array("GSTC".utf8)))
        for item in [fixture.store.credentials, fixture.store.device] {
            let bytes = try #require(try SecretServiceItems.read(item))
            #expect(!String(decoding: bytes, as: UTF8.self).contains("guest-secret-value"))
        }
        #expect(fixture.store.guestService == fixture.service + ".guest")

        try await fixture.store.removeGuest()
        try await fixture.store.removeGuest()
        #expect(try await fixture.store.loadGuest() == nil)
        #expect(try await fixture.store.loadDevice() == KeyringFixture.device, "removing the guest leaves the device")
        #expect(try await fixture.store.load() == KeyringFixture.record, "removing the guest leaves the record")
    }

    @Test(arguments: [
        ([UInt8](), "the credential record file is empty"),
        ([UInt8](repeating: 0, count: 80), "the credential record file is zeroed"),
        (
            Array("not a frame at all, just some text long enough to be read whole".utf8),
            "the credential record file does not start with the store's signature"
        ),
    ])
    func damagedItemsAreTypedErrorsNeverSignedOut(_ bytes: [UInt8], _ message: String) async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        try SecretServiceItems.write(bytes, to: fixture.store.credentials)

        await #expect(throws: CredentialStoreError.corrupted(message)) { try await fixture.store.load() }
    }

    @Test func anItemFromANewerSchemaIsReportedAsSuch() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        try SecretServiceItems.write(
            StoreEnvelope.seal(Array("{}".utf8), kind: .credentials, schemaVersion: 9), to: fixture.store.credentials)

        await #expect(throws: CredentialStoreError.unsupportedSchemaVersion(found: 9, supported: CredentialRecord.currentSchemaVersion)) {
            try await fixture.store.load()
        }
    }

    @Test func aDeviceItemCopiedOverTheRecordIsCaught() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        try await fixture.store.saveDevice(KeyringFixture.device)
        let deviceBytes = try #require(try SecretServiceItems.read(fixture.store.device))
        try SecretServiceItems.write(deviceBytes, to: fixture.store.credentials)

        await #expect(throws: CredentialStoreError.corrupted("the credential record file holds a different kind of record")) {
            try await fixture.store.load()
        }
    }

    @Test func storesForOneServiceShareOneLeaseAndTakeItOneAtATime() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        let other = SecretServiceCredentialStore(service: fixture.service, leaseDirectory: fixture.leaseDirectory)
        #expect(fixture.store.lease === other.lease)
        let stores = [fixture.store, other]
        let meter = Occupancy()

        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<20 {
                group.addTask {
                    let store = stores[index % 2]
                    try await store.withLease {
                        meter.enter()
                        defer { meter.leave() }
                        let rotation = try await store.load().session?.rotation ?? 0
                        try await store.save(KeyringFixture.record(rotation: rotation + 1))
                    }
                }
            }
            try await group.waitForAll()
        }

        #expect(meter.maximum == 1)
        #expect(try await fixture.store.load().session?.rotation == 20, "no read-modify-write was lost")
        #expect(FileManager.default.fileExists(atPath: fixture.leaseDirectory.appendingPathComponent(fixture.service + ".lease.lock").path))
    }

    @Test func anotherServiceSeesNothing() async throws {
        let fixture = KeyringFixture()
        defer { fixture.remove() }
        try await fixture.store.save(KeyringFixture.record)

        let stranger = KeyringFixture()
        defer { stranger.remove() }
        #expect(try await stranger.store.load() == CredentialRecord())
    }

    /// What the `secret-tool` client of the same Secret Service prints.
    private func secretTool(_ arguments: [String]) throws -> String {
        String(decoding: try secretToolBytes(arguments), as: UTF8.self)
    }

    /// What `secret-tool` prints on standard output; an unexpected end records an issue that shows
    /// its standard error (an error message; the items it prints go to standard output).
    private func secretToolBytes(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        let standardError = try ChildStandardError()
        try standardError.run(process)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let termination = ChildTermination(process)
        if termination != .exited(0) {
            let report = standardError.report("secret-tool \(arguments.first ?? "")", ended: termination)
            Issue.record("\(report)", sourceLocation: sourceLocation)
        }
        return Array(data)
    }
}

/// Counts how many lease bodies run at once.
final class Occupancy: Sendable {
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
