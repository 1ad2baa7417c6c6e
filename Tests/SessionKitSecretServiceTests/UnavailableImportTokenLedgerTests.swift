import Foundation
import SessionKitCore
import Testing

@testable import SessionKitSecretService

/// A store that cannot keep an import token ledger refuses imports with a storage error; it
/// never stops the app.
@Suite("Unavailable import token ledger")
struct UnavailableImportTokenLedgerTests {
    @Test("every call fails with a storage error, so no token is used without a record")
    func everyCallFails() async throws {
        let ledger = UnavailableImportTokenLedger()
        let token = CredentialImportToken(UUID())
        await #expect(throws: CredentialStoreError.self) { try await ledger.markUsed(token) }
        await #expect(throws: CredentialStoreError.self) { try await ledger.contains(token) }
    }
}
