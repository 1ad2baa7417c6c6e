import SessionKitCore

/// What recording an ending operation (sign-out, account deletion) in the store's journal found.
///
/// The journal is what lets the operation resume after a relaunch. A store that can be read but
/// not written (full, read-only) does not stop the operation: the person asked to leave, and the
/// provider is still told first; the operation goes on without surviving a relaunch, and the
/// session says so with ``TransitionReason/Code/notJournaled``.
enum JournalAnswer: Sendable, Equatable {
    /// Recorded; the stored session.
    case journaled(StoredSession?)
    /// The stored session was read, but the intent could not be written.
    case notJournaled(StoredSession?, CredentialStoreError)
    /// The store could not be read.
    case unreadable(CredentialStoreError)
}
