#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file operations of `FileCredentialStore` on its directory: durable atomic replace, read,
/// remove. Synchronous; the store runs them off the concurrency pool.
///
/// Replacing a file writes a new temporary file in the same directory, syncs it, renames it over
/// the old name and syncs the directory. Rename within one directory is atomic, so a reader or a
/// crash sees the old file or the new one, never a mixture; syncing before the rename keeps a
/// power loss from leaving a renamed but empty file, and syncing the directory makes the rename
/// itself durable.
///
/// A crash can leave a temporary file behind (it holds secrets, mode 0600). Each writer holds a
/// `flock` on its temporary file until the rename, so a later write can tell an abandoned one
/// (unlocked) from one that another process is still writing (locked) and remove only the former.
package struct StoreDirectory: Sendable {
    static let directoryMode: UInt32 = 0o700
    static let fileMode: UInt32 = 0o600
    /// A file larger than this cannot be a record; reading stops instead of exhausting memory.
    package static let maximumFileSize = Int64(StoreEnvelope.headerSize + StoreEnvelope.maximumPayloadSize + StoreEnvelope.digestSize)
    private static let temporarySuffix = ".tmp"

    let path: String
    let fileSystem: any StoreFileSystem
    /// The names of the files this store replaces; only their temporary files are ever cleaned up.
    let managedNames: Set<String>

    /// A directory at `path` whose files `managedNames` are replaced through `fileSystem`.
    package init(path: String, fileSystem: any StoreFileSystem, managedNames: Set<String>) {
        self.path = path
        self.fileSystem = fileSystem
        self.managedNames = managedNames
    }

    /// The path of file `name` in the directory.
    package func filePath(_ name: String) -> String {
        path.hasSuffix("/") ? path + name : path + "/" + name
    }

    // MARK: Directory

    /// Creates the directory (and missing parents) with mode 0700; an existing one is left as it is.
    package func prepare() throws(CredentialStoreError) {
        try makeDirectory(path)
    }

    private func makeDirectory(_ directory: String) throws(CredentialStoreError) {
        do {
            try fileSystem.makeDirectory(directory, mode: Self.directoryMode)
        } catch  where error.code == EEXIST {
            try requireDirectory(directory)
            return
        } catch  where error.code == ENOENT {
            let parent = Self.parent(of: directory)
            guard parent != directory else { throw error.storeError(for: "store directory") }
            try makeDirectory(parent)
            do {
                try fileSystem.makeDirectory(directory, mode: Self.directoryMode)
            } catch  where error.code == EEXIST {
                try requireDirectory(directory)
                return
            } catch {
                throw error.storeError(for: "store directory")
            }
        } catch {
            throw error.storeError(for: "store directory")
        }
        // mkdir applied the umask; the store wants exactly owner-only access.
        do {
            try fileSystem.changeMode(atPath: directory, to: Self.directoryMode)
        } catch {
            throw error.storeError(for: "store directory")
        }
        // The new directory's own name must survive a power loss too.
        try synchronizeDirectory(Self.parent(of: directory))
    }

    private func requireDirectory(_ directory: String) throws(CredentialStoreError) {
        let status: FileStatus
        do {
            status = try fileSystem.status(atPath: directory)
        } catch {
            throw error.storeError(for: "store directory")
        }
        guard status.kind == .directory else { throw .ioFailure("the store location is not a directory") }
    }

    private static func parent(of directory: String) -> String {
        var trimmed = Substring(directory)
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        if slash == trimmed.startIndex { return "/" }
        return String(trimmed[..<slash])
    }

    private func synchronizeDirectory(_ directory: String) throws(CredentialStoreError) {
        let descriptor: Int32
        do {
            descriptor = try fileSystem.open(directory, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, mode: 0)
        } catch {
            throw .ioFailure(error.message(for: "store directory"))
        }
        defer { try? fileSystem.close(descriptor) }
        do {
            try fileSystem.synchronize(descriptor)
        } catch  where error.code == EINVAL || error.code == ENOTSUP || error.code == EOPNOTSUPP {
            // Some file systems cannot sync a directory; their renames are as durable as they get.
        } catch {
            throw .ioFailure(error.message(for: "store directory"))
        }
    }

    // MARK: Reading

    /// The bytes of file `name`, or nil when it does not exist.
    package func read(_ name: String) throws(CredentialStoreError) -> [UInt8]? {
        let descriptor: Int32
        do {
            descriptor = try fileSystem.open(filePath(name), flags: O_RDONLY | O_CLOEXEC | O_NOFOLLOW, mode: 0)
        } catch  where error.code == ENOENT || error.code == ENOTDIR {
            return nil
        } catch {
            throw error.storeError(for: name)
        }
        defer { try? fileSystem.close(descriptor) }
        do {
            let status = try fileSystem.status(descriptor)
            guard status.kind == .regular else { throw CredentialStoreError.ioFailure("\(name) is not a regular file") }
            guard status.size <= Self.maximumFileSize else {
                throw CredentialStoreError.corrupted("\(name) is larger than any record (\(status.size) bytes)")
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Int(status.size))
            while true {
                let chunk = try fileSystem.read(descriptor, upTo: 64 << 10)
                if chunk.isEmpty { return bytes }
                bytes += chunk
                guard bytes.count <= Self.maximumFileSize else {
                    throw CredentialStoreError.corrupted("\(name) is larger than any record")
                }
            }
        } catch let error as SystemCallError {
            throw error.storeError(for: name)
        } catch let error as CredentialStoreError {
            throw error
        } catch {
            throw .ioFailure("reading \(name) failed")
        }
    }

    // MARK: Writing

    /// Replaces file `name` with `bytes`, durably and atomically.
    ///
    /// A failure before the rename leaves the old file untouched and removes the temporary file.
    package func replace(_ name: String, with bytes: [UInt8]) throws(CredentialStoreError) {
        try prepare()
        removeAbandonedTemporaryFiles()
        // A cleaner in another process can, in a window of two system calls, remove a temporary
        // file before its writer locked it; the writer notices (no longer linked) and starts over.
        for _ in 0..<3 {
            if try attemptReplace(name, with: bytes) { return }
        }
        throw .ioFailure("\(name): temporary file kept disappearing")
    }

    private func attemptReplace(_ name: String, with bytes: [UInt8]) throws(CredentialStoreError) -> Bool {
        let temporaryPath = filePath(".\(name).\(Self.randomTag())\(Self.temporarySuffix)")
        let descriptor: Int32
        do {
            descriptor = try fileSystem.open(
                temporaryPath, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode: Self.fileMode)
        } catch {
            throw error.storeError(for: name)
        }
        var renamed = false
        defer {
            try? fileSystem.close(descriptor)
            if !renamed { try? fileSystem.unlink(temporaryPath) }
        }
        do throws(SystemCallError) {
            do {
                try fileSystem.lock(descriptor, .exclusiveNonBlocking)
            } catch  where error.code == EWOULDBLOCK || error.code == EAGAIN {
                return false
            }
            guard try fileSystem.status(descriptor).linkCount > 0 else { return false }
            // open(2) applied the umask; the file must be exactly owner read/write.
            try fileSystem.changeMode(descriptor, to: Self.fileMode)
            var written = 0
            while written < bytes.count {
                let count = try fileSystem.write(descriptor, bytes[written...])
                guard count > 0 else { throw SystemCallError(call: "write", code: EIO) }
                written += count
            }
            try fileSystem.synchronize(descriptor)
            try fileSystem.rename(temporaryPath, to: filePath(name))
            renamed = true
        } catch {
            throw error.storeError(for: name)
        }
        try synchronizeDirectory(path)
        return true
    }

    /// Removes file `name` durably; a missing file is not an error.
    package func remove(_ name: String) throws(CredentialStoreError) {
        do {
            try fileSystem.unlink(filePath(name))
        } catch  where error.code == ENOENT || error.code == ENOTDIR {
            return
        } catch {
            throw error.storeError(for: name)
        }
        removeAbandonedTemporaryFiles()
        try synchronizeDirectory(path)
    }

    /// Best effort: a failure here must not fail the write that triggered it.
    func removeAbandonedTemporaryFiles() {
        guard let names = try? fileSystem.listDirectory(path) else { return }
        for candidate in names where isTemporaryName(candidate) {
            let candidatePath = filePath(candidate)
            guard let descriptor = try? fileSystem.open(candidatePath, flags: O_RDONLY | O_CLOEXEC | O_NOFOLLOW, mode: 0)
            else { continue }
            // Locked means a live writer still owns it.
            if (try? fileSystem.lock(descriptor, .exclusiveNonBlocking)) != nil {
                try? fileSystem.unlink(candidatePath)
            }
            try? fileSystem.close(descriptor)
        }
    }

    private func isTemporaryName(_ candidate: String) -> Bool {
        guard candidate.hasPrefix("."), candidate.hasSuffix(Self.temporarySuffix) else { return false }
        let stem = candidate.dropFirst()
        return managedNames.contains { stem.hasPrefix($0 + ".") }
    }

    private static func randomTag() -> String {
        let value = UInt64.random(in: .min ... .max)
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
