public import Foundation
public import SessionKitCore

/// The tokens of one verified session as they are kept in a ``CredentialStore``.
public struct StoredSession: Sendable, Equatable, Codable {
    /// The refresh token the session currently uses; `nil` when the provider issued none, so the
    /// session lasts as long as its access token.
    public var refreshToken: Secret?
    /// A rotated refresh token received from the provider whose id_token is not verified yet.
    ///
    /// It is written before anything else happens with it, so a crash cannot lose it; verification
    /// promotes it to ``refreshToken`` or discards it.
    public var pendingRefreshToken: Secret?
    /// The current access token, when one is kept.
    public var accessToken: Secret?
    /// When the access token expires.
    public var accessTokenExpiresAt: Date?
    /// The last verified id_token, kept so a later refresh can be checked against it.
    public var idToken: Secret?
    /// `iss` of the last verified id_token.
    public var issuer: String
    /// `sub` of the last verified id_token.
    public var subject: String
    /// `aud` of the last verified id_token.
    public var audience: [String]
    /// Counts the refreshes stored so far; lets processes sharing a store tell which result is newer.
    public var rotation: UInt64
    /// `canonical_sub` of the last verified id_token, when the provider merged accounts.
    public var canonicalSubject: String?
    /// `linked_subs` of the last verified id_token.
    public var linkedSubjects: [String]?
    /// `anonymous` of the last verified id_token.
    public var isAnonymous: Bool?
    /// The standard and additional claims of the last verified id_token; `nil` in records written
    /// before they were kept.
    public var claims: IdentityClaims?
    /// `true` when the identity came from the UserInfo answer of a device sign-in that brought no
    /// id_token (see `SessionConfiguration.requireIDTokenForDeviceSignIn`).
    public var identityFromUserInfo: Bool?
    /// `true` for a guest session: its access key came from a device bootstrap and is renewed by
    /// bootstrapping again with the device secret (kept in the guest credential's own slot, never here).
    public var isGuest: Bool?
    /// The DPoP key the session's tokens are bound to (RFC 9449), with its thumbprint; `nil` for a
    /// session without DPoP and in records written before DPoP keys were kept (schema 1).
    public var dpopKey: StoredDPoPKey?

    /// Creates a stored session.
    public init(
        refreshToken: Secret?, pendingRefreshToken: Secret? = nil, accessToken: Secret? = nil,
        accessTokenExpiresAt: Date? = nil, idToken: Secret? = nil, issuer: String, subject: String,
        audience: [String], rotation: UInt64 = 0, canonicalSubject: String? = nil, linkedSubjects: [String]? = nil,
        isAnonymous: Bool? = nil, claims: IdentityClaims? = nil, identityFromUserInfo: Bool? = nil, isGuest: Bool? = nil,
        dpopKey: StoredDPoPKey? = nil
    ) {
        self.dpopKey = dpopKey
        self.refreshToken = refreshToken
        self.pendingRefreshToken = pendingRefreshToken
        self.accessToken = accessToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
        self.idToken = idToken
        self.issuer = issuer
        self.subject = subject
        self.audience = audience
        self.rotation = rotation
        self.canonicalSubject = canonicalSubject
        self.linkedSubjects = linkedSubjects
        self.isAnonymous = isAnonymous
        self.claims = claims
        self.identityFromUserInfo = identityFromUserInfo
        self.isGuest = isGuest
    }
}

/// A server-first operation whose intent is journaled before the first server call.
@nonexhaustive
public enum PendingOperation: Sendable, Equatable, Codable {
    /// Sign-out: the refresh token must be revoked before the local wipe.
    case signOut
    /// Account deletion: the app must be disconnected at the provider before the local wipe.
    case deleteAccount
}

/// Everything SessionKit keeps in one store namespace, read and written as one atomic record.
public struct CredentialRecord: Sendable, Equatable, Codable {
    /// The newest schema version this build reads and writes.
    ///
    /// Version 2 added ``StoredSession/dpopKey``. A record is written as version 2 only when it
    /// holds a DPoP key (``schemaVersion``), so an earlier build, which would present a bound
    /// refresh token without its proof, refuses it as newer instead; every other record stays
    /// version 1 and both read it alike. Version 1 records load unchanged.
    public static let currentSchemaVersion = 2

    /// The version this record is written as: 2 when it holds a DPoP key, else 1.
    public var schemaVersion: Int {
        session?.dpopKey != nil ? 2 : 1
    }

    /// The active session's credentials, if any.
    public var session: StoredSession?
    /// A journaled sign-out or account deletion waiting for the server's confirmation.
    public var pendingOperation: PendingOperation?
    /// Refresh tokens of earlier sessions still waiting to be revoked at the provider.
    ///
    /// They are never used again; they stay apart from ``session`` so a new sign-in is not held
    /// hostage by an old revocation.
    public var pendingRevocations: [Secret]

    /// Creates a record; the default is an empty, signed-out record.
    public init(session: StoredSession? = nil, pendingOperation: PendingOperation? = nil, pendingRevocations: [Secret] = []) {
        self.session = session
        self.pendingOperation = pendingOperation
        self.pendingRevocations = pendingRevocations
    }

    /// True when there is nothing to keep.
    public var isEmpty: Bool {
        session == nil && pendingOperation == nil && pendingRevocations.isEmpty
    }
}

/// Durable storage for a session's credentials and its journal.
///
/// Every ``save(_:)`` replaces the whole ``CredentialRecord`` atomically: after a crash the store
/// holds either the old record or the new one, never a mixture.
public protocol CredentialStore: Sendable {
    /// Reads the current record; an empty record when nothing was ever stored.
    func load() async throws(CredentialStoreError) -> CredentialRecord
    /// Replaces the record atomically and durably.
    func save(_ record: CredentialRecord) async throws(CredentialStoreError)
    /// Runs `body` while holding this store's exclusive lease.
    ///
    /// Stores shared between processes (an app and its extensions, several CLI processes) make the
    /// lease cross-process, so only one of them refreshes at a time.
    func withLease<Result: Sendable>(_ body: @Sendable () async throws -> Result) async throws -> Result
}

/// A device-bound credential (1pass.dev): the device's uuid and, once issued, its secret.
public struct DeviceCredential: Sendable, Equatable, Codable {
    /// The stable identifier of this installation.
    public var deviceUUID: String
    /// The secret the provider issued for this device, once known.
    public var deviceSecret: Secret?

    /// Creates a device credential.
    public init(deviceUUID: String, deviceSecret: Secret? = nil) {
        self.deviceUUID = deviceUUID
        self.deviceSecret = deviceSecret
    }
}

/// Storage for the device credential, in a namespace of its own, never beside the refresh token.
public protocol DeviceCredentialStore: Sendable {
    /// Reads the device credential, if one was stored.
    func loadDevice() async throws(CredentialStoreError) -> DeviceCredential?
    /// Stores the device credential atomically.
    func saveDevice(_ credential: DeviceCredential) async throws(CredentialStoreError)
    /// Forgets the device credential (account deletion).
    func removeDevice() async throws(CredentialStoreError)
}
