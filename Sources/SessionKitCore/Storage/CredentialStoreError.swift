/// Why a store could not be read or written. Never "signed out" in disguise.
@nonexhaustive
public enum CredentialStoreError: Error, Sendable, Hashable {
    /// The stored data is truncated, zeroed or fails its checksum.
    case corrupted(String)
    /// The data was written by a newer schema version than this build reads.
    case unsupportedSchemaVersion(found: Int, supported: Int)
    /// The store's location may not be read or written (permissions, read-only volume).
    case permissionDenied(String)
    /// The device has no space left for the update; the previous record is intact.
    case noSpace
    /// Another input/output failure, with the system's message (never the record's content).
    case ioFailure(String)
    /// The cross-process lease could not be taken.
    case leaseUnavailable(String)
    /// The device is locked (before its first unlock, or while the system prewarms the app):
    /// protected data cannot be read yet. Nothing is lost; try again once it is unlocked.
    case locked(String)
}
