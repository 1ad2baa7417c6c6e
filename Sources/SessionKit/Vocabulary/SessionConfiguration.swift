public import Foundation
public import SessionKitCore

/// How a ``Session`` behaves: the provider, its timeouts and its retry policies.
public struct SessionConfiguration: Sendable {
    /// The identity provider.
    public var provider: ProviderConfiguration
    /// How long a handoff may wait for its callback (default 300 s, on the injected clock).
    public var handoffTimeout: Duration = .seconds(300)
    /// Whether the host runs the session's work: `false` (the default, for apps) and the session
    /// starts one task of its own for it; `true` and the session starts none, and its work runs
    /// inside ``Session/run()``, which the host must call (``withSession(configuration:transport:store:presenter:deviceKeys:clock:wallClock:random:isolation:_:)``
    /// does both).
    public var runsInHostTask = false
    /// A token due within this much time is refreshed before it is handed out (default 60 s).
    public var refreshLeadTime: Duration = .seconds(60)
    /// Retries of a refresh that failed transiently, while its callers wait.
    public var refreshRetry: RetryPolicy = .refresh
    /// Retries of server-first sign-out and deletion, until the provider confirms.
    public var serverFirstRetry: RetryPolicy = .serverFirst
    /// Allowed clock difference for `exp`, `iat` and `nbf` (default 60 s).
    public var clockSkew: Double = 60
    /// The largest offset between the device's clock and the provider's that ``Session/serverClock``
    /// corrects (default one hour, either way); see ``ServerClock`` for why it is bounded.
    public var serverClockBound: Duration = .seconds(3600)
    /// Accept an id_token without `kid` when the key set holds exactly one key usable for its `alg`,
    /// whatever the provider profile says. A discovered provider allows it already
    /// (``ProviderConfiguration/allowsMissingKeyID``, OpenID Connect Core §10.1); the 1pass.dev
    /// profile does not unless this is set.
    public var allowMissingKeyID = false
    /// Reject a refresh response without an id_token (code `missing_id_token`). Off by default: OpenID
    /// Connect Core §12.2 lets a provider omit it, and the session then keeps the identity it verified
    /// before (the access token and a rotated refresh token are still taken, durably); an id_token
    /// that is present is always verified in full.
    public var requireIDTokenOnRefresh = false
    /// The access token's lifetime when the provider omits `expires_in`.
    public var defaultAccessTokenLifetime: TimeInterval = 300
    /// How long fetched signing keys are trusted before they are fetched again (default 1 h).
    public var keySetTimeToLive: TimeInterval = 3600
    /// The platform name sent with the device-key exchange.
    public var devicePlatform = "ios"
    /// Request options every sign-in sends (`prompt`, `max_age`, hints, `acr_values`, `resource`,
    /// the `offline_access` policy, extra parameters); `signIn(options:)` overrides them per sign-in
    /// with ``AuthorizationRequestOptions/overriding(with:)``. The offline-access policy also
    /// applies to the scopes of a device sign-in.
    public var authorizationOptions: AuthorizationRequestOptions = .empty
    /// Where the provider sends the browser back after ending its session at sign-out
    /// (RP-Initiated Logout 1.0 `post_logout_redirect_uri`); it must be registered for the client.
    /// The return reaches the session through `handle(_:)`, or from the presenter.
    public var postLogoutRedirectURI: URL?
    /// Whether `signOut()` also ends the provider's browser session, after revoking and wiping,
    /// when the provider advertises an end-session endpoint (default off). Without it, the next
    /// sign-in may pass silently on the provider's session cookie.
    public var endsProviderSessionAtSignOut = false
    /// How long `signOut()` waits for the provider to send the browser back from its end-session
    /// page, once the refresh token is revoked and the credentials are wiped (default 60 s, on the
    /// injected clock). A provider that refuses the post-logout redirect URI (a loopback port it
    /// does not accept, an unregistered path) shows the person an error page and never sends it
    /// back: `signOut()` then returns after this long, with `ProviderLogoutOutcome.timedOut`, and
    /// the provider's browser session may remain.
    public var providerLogoutTimeout: Duration = .seconds(60)
    /// Whether a device sign-in must bring an id_token (default on): without one it fails with
    /// `SessionError.verificationFailed(.missingIDToken)`. Off, a response without an id_token
    /// (some providers issue none for the device grant) is accepted with the identity the UserInfo
    /// endpoint names for its access token (``SessionIdentity/Source/userInfo``); an id_token, when
    /// one comes, is still verified in full. Such a session needs ``requireIDTokenOnRefresh`` off
    /// (the default) when the provider's refreshes bring none either.
    public var requireIDTokenForDeviceSignIn = true
    /// Where the session asks for background time around each refresh and each revocation or
    /// disconnect attempt. `Session(provider:presenter:)` uses `SystemBackgroundTasks` on iOS;
    /// `nil` (elsewhere) asks for none.
    public var backgroundTasks: (any BackgroundTaskProvider)?
    /// Whether protected data can be read. With a source, ``Session/restore()`` waits for it when
    /// the device is locked (before the first unlock, during prewarm) instead of failing;
    /// `Session(provider:presenter:)` uses `SystemProtectedData` on iOS. Without one, a locked
    /// store makes ``Session/restore()`` throw `SessionError.storage(.locked)`, a transient error
    /// the app retries once the device is unlocked; either way the app is told through
    /// ``SessionEvent/credentialStoreLocked``.
    public var protectedData: (any ProtectedDataAvailability)?
    /// The display name a guest bootstrap sends for this device, when the provider profile takes one.
    public var guestDeviceName: String?
    /// How long a guest key whose bootstrap answer has no `expires_in` is taken to last.
    public var guestKeyFallbackLifetime: Duration = .seconds(300)
    /// The high-assurance token's vault, when the app keeps one: ``Session/signOut()`` and
    /// ``Session/deleteAccount()`` remove its item at the point they wipe the credentials (after
    /// the provider confirmed, or was found unable to be told), and a guest session's end does too.
    public var highAssurance: HighAssuranceVault?
    /// The request middleware every request to the provider passes through between the provider
    /// client and the transport, outermost first (see ``RequestMiddleware``); empty by default.
    /// The device-key exchange of ``DeviceKeySource/automatic`` and discovery do not go through it.
    public var requestMiddleware: [any RequestMiddleware] = []
    /// How the client authenticates at the token, revocation and device authorization endpoints
    /// (default ``ClientAuthentication/none``: a public client). Its middleware runs innermost,
    /// after ``requestMiddleware``. Never rendered with its secret or key.
    public var clientAuthentication: ClientAuthentication = .none
    /// A registered client the session keeps current (``use(_:renewingWith:)``); when set, it
    /// authenticates the client instead of ``clientAuthentication``.
    var registrationRenewal: RegistrationRenewal?
    /// Whether the session's tokens are sender-constrained with DPoP (RFC 9449): off (the
    /// default), ``DPoPPolicy/whenSupported`` (the provider's discovery document lists ES256 in
    /// `dpop_signing_alg_values_supported`) or ``DPoPPolicy/required``. With DPoP on, each sign-in
    /// makes one key, kept with the session in ``dpopKeyStore`` and the credential record and
    /// deleted with it.
    public var dpop: DPoPPolicy = .off
    /// Where the session's DPoP keys live: on Apple platforms the Secure Enclave when the device
    /// has one, else a Keychain key (``PlatformDPoPKeyStore`` over `KeychainDPoPKeyBackend`);
    /// elsewhere the credential record (``RecordDPoPKeyStore``).
    public var dpopKeyStore: any DPoPKeyStore = Self.platformDPoPKeyStore

    /// Creates a configuration with the defaults above.
    public init(provider: ProviderConfiguration) {
        self.provider = provider
    }
}

/// An access token handed to the app. Its `description` never shows the token.
public struct AccessToken: Sendable, Hashable, CustomStringConvertible {
    /// The token; send it as `Authorization: Bearer …`.
    public let secret: Secret
    /// When it expires.
    public let expiresAt: Date

    /// Creates an access token value.
    public init(secret: Secret, expiresAt: Date) {
        self.secret = secret
        self.expiresAt = expiresAt
    }

    /// Never the token itself.
    public var description: String { "AccessToken(<redacted>, expires \(expiresAt))" }
}

extension SessionConfiguration {
    /// The platform's DPoP key store.
    static var platformDPoPKeyStore: any DPoPKeyStore {
        #if canImport(Security)
            PlatformDPoPKeyStore(backend: KeychainDPoPKeyBackend())
        #else
            RecordDPoPKeyStore()
        #endif
    }

    /// The refresh timing rule of ``refreshLeadTime``, as every part of the session applies it.
    var refreshTiming: RefreshTiming { RefreshTiming(leadTime: refreshLeadTime) }
}
