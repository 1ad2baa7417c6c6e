import Foundation
import SessionKit
import SessionKitTesting
import Testing

@Suite("Guest credential storage")
struct GuestCredentialStorageTests {
    private static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("guest-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func theFileStoreKeepsTheGuestInAFileOfItsOwn() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileCredentialStore(directory: directory)
        #expect(try await store.loadGuest() == nil)
        let guest = GuestCredential(deviceID: "dev-1", deviceSecret: Secret("GUEST-SECRET"))
        try await store.saveGuest(guest)
        try await store.saveDevice(DeviceCredential(deviceUUID: "key-device", deviceSecret: Secret("DEVICE-SECRET")))
        try await store.save(
            CredentialRecord(session: StoredSession(refreshToken: Secret("RT"), issuer: "i", subject: "s", audience: ["a"])))
        #expect(try await FileCredentialStore(directory: directory).loadGuest() == guest)
        let guestFile = try Data(contentsOf: directory.appendingPathComponent("guest"))
        let credentialsFile = try Data(contentsOf: directory.appendingPathComponent("credentials"))
        let deviceFile = try Data(contentsOf: directory.appendingPathComponent("device"))
        #expect(guestFile.range(of: Data("GUEST-SECRET".utf8)) != nil)
        #expect(credentialsFile.range(of: Data("GUEST-SECRET".utf8)) == nil)
        #expect(deviceFile.range(of: Data("GUEST-SECRET".utf8)) == nil)
        #expect(guestFile.range(of: Data("RT".utf8)) == nil)
        try await store.removeGuest()
        try await store.removeGuest()
        #expect(try await store.loadGuest() == nil)
        #expect(try await store.loadDevice() != nil)
        #expect(try await store.load().session != nil)
    }

    @Test func aDeviceFileCopiedOverTheGuestFileIsCaught() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileCredentialStore(directory: directory)
        try await store.saveDevice(DeviceCredential(deviceUUID: "key-device"))
        try FileManager.default.copyItem(at: directory.appendingPathComponent("device"), to: directory.appendingPathComponent("guest"))
        await #expect(throws: CredentialStoreError.corrupted("the guest credential file holds a different kind of record")) {
            try await store.loadGuest()
        }
    }

    @Test func theInMemoryStoreCountsAndFailsGuestOperations() async throws {
        let store = InMemoryCredentialStore()
        store.failNext(.saveGuest, with: .noSpace)
        await #expect(throws: CredentialStoreError.noSpace) { try await store.saveGuest(GuestCredential(deviceID: "d")) }
        #expect(store.guest == nil)
        try await store.saveGuest(GuestCredential(deviceID: "d"))
        #expect(try await store.loadGuest() == GuestCredential(deviceID: "d"))
        #expect(store.count(of: .saveGuest) == 2)
        #expect(store.count(of: .loadGuest) == 1)
        try await store.removeGuest()
        #expect(store.guest == nil)
    }

    @Test func aGuestCredentialNeverShowsItsSecret() {
        let guest = GuestCredential(deviceID: "dev-1", deviceSecret: Secret("GUEST-SECRET"))
        var dumped = ""
        dump(guest, to: &dumped)
        for text in [String(describing: guest), String(reflecting: guest), dumped, "\(guest)"] {
            #expect(!text.contains("GUEST-SECRET"))
        }
        #expect(String(describing: guest).contains("dev-1"))
    }
}
