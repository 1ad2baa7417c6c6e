import Foundation
import SessionKitJOSE

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
        let key: (any DPoPSigningKey)?
        do {
            key = try keyStore.key(for: stored)
        } catch {
            return .failure(DPoPKeyLoss(reason: .unreadable))
        }
        guard let key else { return .failure(DPoPKeyLoss(reason: .missing)) }
        guard key.publicKey.thumbprint == stored.thumbprint else { return .failure(DPoPKeyLoss(reason: .thumbprintMismatch)) }
        return .success(key)
    }

    /// Makes `key` the one every later request is signed with.
    func use(_ key: any DPoPSigningKey, boundTokens: Bool) {
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
