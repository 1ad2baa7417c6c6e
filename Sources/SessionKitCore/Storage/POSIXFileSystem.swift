#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real ``StoreFileSystem``: thin wrappers over the POSIX calls, with `EINTR` retried.
package struct POSIXFileSystem: StoreFileSystem {
    /// Creates the file system.
    package init() {}

    package func open(_ path: String, flags: Int32, mode: UInt32) throws(SystemCallError) -> Int32 {
        Int32(try retryingInterrupts("open") { systemOpen(path, flags, mode_t(truncatingIfNeeded: mode)) })
    }

    package func close(_ descriptor: Int32) throws(SystemCallError) {
        // close(2) must not be retried on EINTR: the descriptor is already gone on Linux.
        if systemClose(descriptor) != 0 {
            let code = errno
            if code != EINTR { throw SystemCallError(call: "close", code: code) }
        }
    }

    package func read(_ descriptor: Int32, upTo count: Int) throws(SystemCallError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let got = try retryingInterrupts("read") {
            buffer.withUnsafeMutableBytes { raw in systemRead(descriptor, raw.baseAddress, raw.count) }
        }
        buffer.removeSubrange(got...)
        return buffer
    }

    package func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(SystemCallError) -> Int {
        try retryingInterrupts("write") {
            bytes.withUnsafeBytes { raw in systemWrite(descriptor, raw.baseAddress, raw.count) }
        }
    }

    package func synchronize(_ descriptor: Int32) throws(SystemCallError) {
        _ = try retryingInterrupts("fsync") { Int(systemFsync(descriptor)) }
    }

    package func changeMode(_ descriptor: Int32, to mode: UInt32) throws(SystemCallError) {
        _ = try retryingInterrupts("fchmod") { Int(systemFchmod(descriptor, mode_t(truncatingIfNeeded: mode))) }
    }

    package func status(_ descriptor: Int32) throws(SystemCallError) -> FileStatus {
        var info = stat()
        _ = try retryingInterrupts("fstat") { Int(fstat(descriptor, &info)) }
        return FileStatus(info)
    }

    package func status(atPath path: String) throws(SystemCallError) -> FileStatus {
        var info = stat()
        _ = try retryingInterrupts("stat") { Int(stat(path, &info)) }
        return FileStatus(info)
    }

    package func rename(_ source: String, to destination: String) throws(SystemCallError) {
        _ = try retryingInterrupts("rename") { Int(systemRename(source, destination)) }
    }

    package func unlink(_ path: String) throws(SystemCallError) {
        _ = try retryingInterrupts("unlink") { Int(systemUnlink(path)) }
    }

    package func makeDirectory(_ path: String, mode: UInt32) throws(SystemCallError) {
        _ = try retryingInterrupts("mkdir") { Int(systemMkdir(path, mode_t(truncatingIfNeeded: mode))) }
    }

    package func changeMode(atPath path: String, to mode: UInt32) throws(SystemCallError) {
        _ = try retryingInterrupts("chmod") { Int(systemChmod(path, mode_t(truncatingIfNeeded: mode))) }
    }

    package func listDirectory(_ path: String) throws(SystemCallError) -> [String] {
        guard let stream = opendir(path) else { throw SystemCallError(call: "opendir", code: errno) }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw SystemCallError(call: "readdir", code: errno) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    package func lock(_ descriptor: Int32, _ operation: FileLockOperation) throws(SystemCallError) {
        let flags: Int32
        switch operation {
        case .exclusive: flags = LOCK_EX
        case .exclusiveNonBlocking: flags = LOCK_EX | LOCK_NB
        case .unlock: flags = LOCK_UN
        }
        _ = try retryingInterrupts("flock") { Int(systemFlock(descriptor, flags)) }
    }

    /// Runs a call that reports failure as -1 and `errno`, retrying when a signal interrupted it.
    private func retryingInterrupts<Value: BinaryInteger>(
        _ call: String, _ body: () -> Value
    ) throws(SystemCallError) -> Int {
        while true {
            let result = body()
            if result >= 0 { return Int(result) }
            let code = errno
            if code != EINTR { throw SystemCallError(call: call, code: code) }
        }
    }
}

extension FileStatus {
    fileprivate init(_ info: stat) {
        let type = UInt32(info.st_mode) & UInt32(S_IFMT)
        let kind: Kind
        switch type {
        case UInt32(S_IFREG): kind = .regular
        case UInt32(S_IFDIR): kind = .directory
        default: kind = .other
        }
        self.init(
            kind: kind, permissions: UInt32(info.st_mode) & 0o7777, size: Int64(info.st_size),
            linkCount: UInt64(info.st_nlink))
    }
}

// The method names above shadow the C functions inside the type; these aliases reach the C ones.
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
private func systemFsync(_ descriptor: Int32) -> Int32 { fsync(descriptor) }
private func systemFchmod(_ descriptor: Int32, _ mode: mode_t) -> Int32 { fchmod(descriptor, mode) }
private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
private func systemUnlink(_ path: String) -> Int32 { unlink(path) }
private func systemMkdir(_ path: String, _ mode: mode_t) -> Int32 { mkdir(path, mode) }
private func systemChmod(_ path: String, _ mode: mode_t) -> Int32 { chmod(path, mode) }
private func systemFlock(_ descriptor: Int32, _ operation: Int32) -> Int32 { flock(descriptor, operation) }
