import SessionKitCore
public import SessionKitJOSE

/// The DPoP key a session's requests are signed with, and whether its current access token is
/// bound to it.
///
/// One holder belongs to one session; ``DPoPMiddleware`` reads it for every request, so replacing
/// the key (a new sign-in) takes effect with the next request and no request ever mixes keys.
public final class DPoPKeyHolder: Sendable {
    private struct State {
        var signer: DPoPProofSigner?
        var accessTokenIsBound = false
    }

    private let state: Locked<State>

    /// A holder with `key`, or empty (requests go out without proofs) when nil.
    public init(key: (any DPoPSigningKey)? = nil) {
        state = Locked(State(signer: key.map(DPoPProofSigner.init(key:))))
    }

    /// The signer for the current key, if there is one.
    public var signer: DPoPProofSigner? {
        state.withLock { $0.signer }
    }

    /// The current key's RFC 7638 thumbprint, if there is a key.
    public var thumbprint: String? {
        signer?.thumbprint
    }

    /// Whether the provider said the current access token is DPoP-bound (`token_type` `DPoP`).
    public var accessTokenIsBound: Bool {
        state.withLock { $0.accessTokenIsBound }
    }

    /// Replaces the key (or removes it, with nil); the binding of the access token is forgotten
    /// with the old key.
    public func replace(with key: (any DPoPSigningKey)?) {
        let signer = key.map(DPoPProofSigner.init(key:))
        state.withLock { $0 = State(signer: signer) }
    }

    /// Records what the latest token response said about the access token's type.
    func recordAccessToken(bound: Bool) {
        state.withLock { $0.accessTokenIsBound = bound }
    }
}
