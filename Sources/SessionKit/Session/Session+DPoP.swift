import Foundation
import SessionKitCore
import SessionKitJOSE

extension Session {
    /// The client a sign-in's requests go through: the session's, or with a sign-in key, the same
    /// chain whose DPoP middleware signs with that key (the session's own key, if any, stays with
    /// the session until the sign-in's tokens are stored).
    func signInClient(_ key: DPoPSignInKey?) -> ProviderClient {
        guard let key else { return client }
        return ProviderClient(
            configuration: configuration.provider, transport: client.transport,
            middleware: outerMiddleware + [dpop.middleware(key.holder)] + innerMiddleware, now: wallClock)
    }

    /// `tokens` bound to the sign-in's key, with whether the provider issued them DPoP-bound.
    func bind(_ tokens: VerifiedTokens, to key: DPoPSignInKey?) -> VerifiedTokens {
        guard let key else { return tokens }
        var stored = key.stored
        stored.tokensAreBound = key.holder.accessTokenIsBound
        return tokens.binding(stored)
    }

    /// Makes the stored sign-in's key the one every later request is signed with.
    func adopt(_ key: DPoPSignInKey?, for tokens: VerifiedTokens) {
        guard let key else { return }
        dpop.use(key.key, boundTokens: tokens.dpopKey?.tokensAreBound ?? false)
    }

    /// Finds the key a stored session's tokens are bound to and signs with it from now on; the
    /// reason it cannot be used otherwise. A session without a key leaves the holder empty.
    /// `confirmingInKeyStore` looks the key up even when it is the one in use (before a refresh:
    /// a key deleted from the store while the app runs is gone, not kept alive in memory).
    func restoreKey(of session: StoredSession, confirmingInKeyStore: Bool = false) -> DPoPKeyLoss? {
        guard let stored = session.dpopKey else {
            dpop.holder.replace(with: nil)
            dpop.lastRecordKey.forget()
            return nil
        }
        let inUse = dpop.holder.thumbprint == stored.thumbprint
        if inUse, !confirmingInKeyStore { return nil }
        switch dpop.restoreKey(stored) {
        case .success(let key):
            if !inUse { dpop.use(key, boundTokens: stored.tokensAreBound) }
            return nil
        case .failure(let loss):
            // Never sign with another key: the holder is emptied, not kept.
            dpop.holder.replace(with: nil)
            dpop.lastRecordKey.forget()
            return DPoPKeyLoss(
                reason: loss.reason, subject: session.canonicalSubject ?? session.subject,
                loginHint: session.claims?.profile.preferredUsername ?? session.claims?.profile.email)
        }
    }

    /// Deletes the key made for a sign-in that ended without tokens (cancelled before the code
    /// exchange, timed out, refused, or never admitted), platform store included, unless a stored
    /// session took it: a key no session will ever sign with is not left behind.
    func discardSignInKey(_ key: DPoPSignInKey?) async {
        guard let key else { return }
        let thumbprint = key.stored.thumbprint
        if dpop.holder.thumbprint == thumbprint { return }
        if let stored = try? await store.load(), stored.session?.dpopKey?.thumbprint == thumbprint { return }
        await dpop.keyStore.deleteKey(key.stored)
    }

    /// Deletes a session's key once its record is wiped; the holder forgets it when it is the
    /// current one.
    func deleteKey(_ stored: StoredDPoPKey?) async {
        guard let stored else { return }
        if dpop.holder.thumbprint == stored.thumbprint { dpop.holder.replace(with: nil) }
        dpop.lastRecordKey.forget()
        await dpop.keyStore.deleteKey(stored)
    }

    /// One atomic read-modify-write under the store's lease that also answers what `change` saw.
    func updateReporting<Value: Sendable>(
        _ change: @escaping @Sendable (inout CredentialRecord) -> Value
    ) async -> Result<Value, CredentialStoreError> {
        let store = self.store
        return await leased { () async -> Result<Value, CredentialStoreError> in
            do throws(CredentialStoreError) {
                var record = try await store.load()
                let value = change(&record)
                try await store.save(record)
                return .success(value)
            } catch {
                return .failure(error)
            }
        }.flatMap { $0 }
    }
}
