import Foundation
import SessionKitJOSE
import Synchronization

/// The session's DPoP parts (RFC 9449): the holder every request is signed from, the nonces
/// kept per server, the key store, and what the policy asks of new sign-ins.
struct SessionDPoP: Sendable {
    /// The current session's key; empty (requests without proofs) while no key is in use.
    let holder: DPoPKeyHolder
    /// The nonces each server gave, shared by the session's and its sign-ins' requests.
    let nonces: DPoPNonceCache
    /// What a new sign-in's tokens must be; `nil` when new sign-ins make no key.
    let requirement: DPoPMiddleware.Requirement?
    /// Where keys are made, found and deleted.
    let keyStore: any DPoPKeyStore
    let now: @Sendable () -> Date
    /// The record-held key ``restoreKey(_:)`` built last, with the stored key it came from.
    let lastRecordKey = RecordKeyMemo()

    /// The middleware signing with `holder`'s key.
    func middleware(_ holder: DPoPKeyHolder) -> DPoPMiddleware {
        DPoPMiddleware(keys: holder, nonces: nonces, requirement: requirement ?? .whenIssued, now: now)
    }

    /// A key for a new sign-in, or `nil` when the policy asks for none.
    func makeSignInKey() throws(SessionError) -> DPoPSignInKey? {
        guard requirement != nil else { return nil }
        do {
            let (key, stored) = try keyStore.makeKey()
            return DPoPSignInKey(key: key, stored: stored, holder: DPoPKeyHolder(key: key))
        } catch {
            throw .dpopKeyUnavailable(DPoPKeyLoss(reason: .notCreated))
        }
    }

    /// The key `stored` names, when it is there and is the key the record says (its RFC 7638
    /// thumbprint); otherwise why not.
    func restoreKey(_ stored: StoredDPoPKey) -> Result<any DPoPSigningKey, DPoPKeyLoss> {
        // The built-in stores read a record-held key from the record alone: the same stored key
        // gives the same key, so the last one built (its pair and public checks run, its
        // thumbprint compared) is reused rather than rebuilt before every refresh.
        let memoizes = stored.placement == .record && (keyStore is RecordDPoPKeyStore || keyStore is PlatformDPoPKeyStore)
        if memoizes, let key = lastRecordKey.key(for: stored) { return .success(key) }
        let key: (any DPoPSigningKey)?
        do {
            key = try keyStore.key(for: stored)
        } catch {
            return .failure(DPoPKeyLoss(reason: .unreadable))
        }
        guard let key else { return .failure(DPoPKeyLoss(reason: .missing)) }
        guard key.publicKey.thumbprint == stored.thumbprint else { return .failure(DPoPKeyLoss(reason: .thumbprintMismatch)) }
        if memoizes { lastRecordKey.remember(key, for: stored) }
        return .success(key)
    }

    /// Makes `key` the one every later request is signed with.
    func use(_ key: any DPoPSigningKey, boundTokens: Bool) {
        lastRecordKey.forget(unlessThumbprint: key.publicKey.thumbprint)
        holder.replace(with: key)
        holder.recordAccessToken(bound: boundTokens)
    }
}

/// A sign-in's DPoP key, made when the sign-in starts and kept with its tokens once verified.
struct DPoPSignInKey: Sendable, Equatable {
    let key: any DPoPSigningKey
    let stored: StoredDPoPKey
    /// The sign-in's own holder: its requests are signed from it, and it records whether the
    /// provider issued the tokens DPoP-bound.
    let holder: DPoPKeyHolder

    static func == (lhs: DPoPSignInKey, rhs: DPoPSignInKey) -> Bool {
        lhs.stored == rhs.stored
    }
}

/// The last record-held key a session built from its stored form. Forgotten with the key (the
/// session's record wiped, or its key refused), so it never outlives the holder's use of it.
final class RecordKeyMemo: Sendable {
    private let entry = Mutex<(stored: StoredDPoPKey, key: any DPoPSigningKey)?>(nil)

    /// The key built from exactly `stored`, if it is the one remembered.
    func key(for stored: StoredDPoPKey) -> (any DPoPSigningKey)? {
        entry.withLock { entry in entry?.stored == stored ? entry?.key : nil }
    }

    /// Remembers `key`, built and checked from `stored`, in place of the one before.
    func remember(_ key: any DPoPSigningKey, for stored: StoredDPoPKey) {
        entry.withLock { $0 = (stored, key) }
    }

    /// Forgets the key remembered.
    func forget() {
        entry.withLock { $0 = nil }
    }

    /// Forgets the key remembered unless it has this thumbprint (the key the session goes on
    /// signing with).
    func forget(unlessThumbprint thumbprint: String) {
        entry.withLock { entry in
            if entry?.stored.thumbprint != thumbprint { entry = nil }
        }
    }
}
