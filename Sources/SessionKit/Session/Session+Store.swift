import Foundation
import SessionKitCore

extension Session {
    /// Runs `body` under the store's lease. The lease's own failure is the only error here; the
    /// protocol declares it untyped, so it is turned into a store error at this one seam.
    func leased<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) async -> Result<Value, CredentialStoreError> {
        do {
            return .success(try await store.withLease(body))
        } catch let error as CredentialStoreError {
            return .failure(error)
        } catch {
            return .failure(.leaseUnavailable("the lease could not be taken"))
        }
    }

    /// One atomic read-modify-write under the store's lease.
    func update(_ change: @escaping @Sendable (inout CredentialRecord) -> Void) async -> Result<Void, CredentialStoreError> {
        let store = self.store
        return await leased { () async -> Result<Void, CredentialStoreError> in
            do throws(CredentialStoreError) {
                var record = try await store.load()
                change(&record)
                try await store.save(record)
                return .success(())
            } catch {
                return .failure(error)
            }
        }.flatMap { $0 }
    }
}
