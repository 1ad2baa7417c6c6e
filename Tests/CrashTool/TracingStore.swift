import Foundation
import SessionKit

/// A ``FileCredentialStore`` that, when tracing, prints a line before each write and once the
/// write is durable, so the parent can kill the process in the middle of one.
struct TracingStore: CredentialStore, DeviceCredentialStore {
    let base: FileCredentialStore
    let trace: Bool

    func load() async throws(CredentialStoreError) -> CredentialRecord {
        try await base.load()
    }

    func save(_ record: CredentialRecord) async throws(CredentialStoreError) {
        if trace { ToolOutput.emit("io save credentials") }
        try await base.save(record)
        if trace { ToolOutput.emit("io saved credentials") }
    }

    func withLease<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result {
        try await base.withLease(body)
    }

    func loadDevice() async throws(CredentialStoreError) -> DeviceCredential? {
        try await base.loadDevice()
    }

    func saveDevice(_ credential: DeviceCredential) async throws(CredentialStoreError) {
        if trace { ToolOutput.emit("io save device") }
        try await base.saveDevice(credential)
        if trace { ToolOutput.emit("io saved device") }
    }

    func removeDevice() async throws(CredentialStoreError) {
        if trace { ToolOutput.emit("io save device") }
        try await base.removeDevice()
        if trace { ToolOutput.emit("io saved device") }
    }
}
