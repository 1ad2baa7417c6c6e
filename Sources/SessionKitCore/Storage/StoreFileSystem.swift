/// The system calls `FileCredentialStore` makes, as a seam.
///
/// The store's logic (atomic replace, locking, error mapping) sits above this seam, so tests can
/// inject a full disk, a read-only volume or a short write at any single step without root
/// privileges. ``POSIXFileSystem`` is the real implementation.
package protocol StoreFileSystem: Sendable {
    /// `open(2)`; returns the descriptor.
    func open(_ path: String, flags: Int32, mode: UInt32) throws(SystemCallError) -> Int32
    /// `close(2)`.
    func close(_ descriptor: Int32) throws(SystemCallError)
    /// `read(2)` of at most `count` bytes; an empty result means end of file.
    func read(_ descriptor: Int32, upTo count: Int) throws(SystemCallError) -> [UInt8]
    /// `write(2)`; returns how many bytes were written, which may be fewer than given.
    func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(SystemCallError) -> Int
    /// `fsync(2)`.
    func synchronize(_ descriptor: Int32) throws(SystemCallError)
    /// `fchmod(2)`.
    func changeMode(_ descriptor: Int32, to mode: UInt32) throws(SystemCallError)
    /// `fstat(2)`.
    func status(_ descriptor: Int32) throws(SystemCallError) -> FileStatus
    /// `stat(2)`, following symbolic links.
    func status(atPath path: String) throws(SystemCallError) -> FileStatus
    /// `rename(2)`.
    func rename(_ source: String, to destination: String) throws(SystemCallError)
    /// `unlink(2)`.
    func unlink(_ path: String) throws(SystemCallError)
    /// `mkdir(2)`.
    func makeDirectory(_ path: String, mode: UInt32) throws(SystemCallError)
    /// `chmod(2)`.
    func changeMode(atPath path: String, to mode: UInt32) throws(SystemCallError)
    /// The names in a directory, without `.` and `..`.
    func listDirectory(_ path: String) throws(SystemCallError) -> [String]
    /// `flock(2)`; `EINTR` is retried by the implementation.
    func lock(_ descriptor: Int32, _ operation: FileLockOperation) throws(SystemCallError)
}

/// What a ``StoreFileSystem/lock(_:_:)`` call asks for.
package enum FileLockOperation: Sendable, Equatable {
    /// Wait until the exclusive lock is ours.
    case exclusive
    /// Take the exclusive lock if it is free, else fail with `EWOULDBLOCK`.
    case exclusiveNonBlocking
    /// Give the lock back.
    case unlock
}

/// The part of `stat(2)` the store looks at.
package struct FileStatus: Sendable, Equatable {
    /// The kind of file system object.
    package enum Kind: Sendable, Equatable {
        case regular
        case directory
        case other
    }

    /// The kind of object.
    package var kind: Kind
    /// The permission bits (`st_mode & 0o7777`).
    package var permissions: UInt32
    /// The size in bytes.
    package var size: Int64
    /// The number of hard links; zero once the file was unlinked.
    package var linkCount: UInt64

    /// Creates a status value.
    package init(kind: Kind, permissions: UInt32, size: Int64, linkCount: UInt64) {
        self.kind = kind
        self.permissions = permissions
        self.size = size
        self.linkCount = linkCount
    }
}

/// A failed system call: which call and its `errno`.
package struct SystemCallError: Error, Sendable, Equatable {
    /// The call's name, e.g. `"write"`.
    package var call: String
    /// The `errno` value.
    package var code: Int32

    /// Creates an error value.
    package init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }
}
