import Synchronization

@testable import SessionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``StoreFileSystem`` over the real one that fails chosen calls with a chosen `errno`, shortens
/// writes, and reports when a blocking lock is requested.
final class FaultyFileSystem: StoreFileSystem {
    enum Call: Sendable, Hashable, CaseIterable {
        case open, close, read, write, synchronize, changeMode, status, rename, unlink, makeDirectory, lock
    }

    /// Which file a rule applies to, by the name's last path component.
    enum Target: Sendable {
        case any
        /// The file itself or a temporary file written for it.
        case file(String)
        /// The store directory itself (for directory syncs and mkdir).
        case directory
    }

    private struct Rule {
        var call: Call
        var target: Target
        var code: Int32
        var remaining: Int
    }

    private struct State {
        var rules: [Rule] = []
        var paths: [Int32: String] = [:]
        var calls: [Call: Int] = [:]
        var maximumWriteSize: Int?
        var directoryPath: String?
    }

    private let real = POSIXFileSystem()
    private let state = Locked(State())
    /// Called each time a blocking exclusive lock is requested, before it blocks.
    private let onBlockingLock: (@Sendable () -> Void)?

    /// `directory` is the store directory, for rules that target it.
    init(directory: String? = nil, onBlockingLock: (@Sendable () -> Void)? = nil) {
        self.onBlockingLock = onBlockingLock
        state.withLock { $0.directoryPath = directory }
    }

    /// Fails the next `times` matching calls with `code`.
    func fail(_ call: Call, _ target: Target = .any, with code: Int32, times: Int = 1) {
        state.withLock { $0.rules.append(Rule(call: call, target: target, code: code, remaining: times)) }
    }

    /// Makes every write accept at most `size` bytes.
    func limitWrites(to size: Int?) {
        state.withLock { $0.maximumWriteSize = size }
    }

    /// Injected failures that have not happened yet; a test checks this is zero so an injection
    /// that never matched cannot pass unnoticed.
    var pendingFaults: Int {
        state.withLock { $0.rules.reduce(0) { $0 + $1.remaining } }
    }

    func count(of call: Call) -> Int {
        state.withLock { $0.calls[call, default: 0] }
    }

    private func check(_ call: Call, path: String?) throws(SystemCallError) {
        let code = state.withLock { state -> Int32? in
            state.calls[call, default: 0] += 1
            guard
                let index = state.rules.firstIndex(where: {
                    $0.call == call && $0.remaining > 0 && Self.matches($0.target, path: path, directory: state.directoryPath)
                })
            else { return nil }
            state.rules[index].remaining -= 1
            return state.rules[index].code
        }
        if let code { throw SystemCallError(call: "\(call)", code: code) }
    }

    private static func matches(_ target: Target, path: String?, directory: String?) -> Bool {
        switch target {
        case .any:
            return true
        case .directory:
            guard let path, let directory else { return false }
            return path == directory
        case .file(let name):
            guard let path else { return false }
            let last = path.split(separator: "/").last.map(String.init) ?? path
            return last == name || (last.hasPrefix("." + name + ".") && last.hasSuffix(".tmp"))
        }
    }

    private func path(of descriptor: Int32) -> String? {
        state.withLock { $0.paths[descriptor] }
    }

    func open(_ path: String, flags: Int32, mode: UInt32) throws(SystemCallError) -> Int32 {
        try check(.open, path: path)
        let descriptor = try real.open(path, flags: flags, mode: mode)
        state.withLock { $0.paths[descriptor] = path }
        return descriptor
    }

    func close(_ descriptor: Int32) throws(SystemCallError) {
        let path = path(of: descriptor)
        state.withLock { _ = $0.paths.removeValue(forKey: descriptor) }
        do {
            try check(.close, path: path)
        } catch {
            try? real.close(descriptor)
            throw error
        }
        try real.close(descriptor)
    }

    func read(_ descriptor: Int32, upTo count: Int) throws(SystemCallError) -> [UInt8] {
        try check(.read, path: path(of: descriptor))
        return try real.read(descriptor, upTo: count)
    }

    func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(SystemCallError) -> Int {
        try check(.write, path: path(of: descriptor))
        let limit = state.withLock { $0.maximumWriteSize }
        if let limit { return try real.write(descriptor, bytes.prefix(limit)) }
        return try real.write(descriptor, bytes)
    }

    func synchronize(_ descriptor: Int32) throws(SystemCallError) {
        try check(.synchronize, path: path(of: descriptor))
        try real.synchronize(descriptor)
    }

    func changeMode(_ descriptor: Int32, to mode: UInt32) throws(SystemCallError) {
        try check(.changeMode, path: path(of: descriptor))
        try real.changeMode(descriptor, to: mode)
    }

    func status(_ descriptor: Int32) throws(SystemCallError) -> FileStatus {
        try check(.status, path: path(of: descriptor))
        return try real.status(descriptor)
    }

    func status(atPath path: String) throws(SystemCallError) -> FileStatus {
        try check(.status, path: path)
        return try real.status(atPath: path)
    }

    func rename(_ source: String, to destination: String) throws(SystemCallError) {
        try check(.rename, path: destination)
        try real.rename(source, to: destination)
    }

    func unlink(_ path: String) throws(SystemCallError) {
        try check(.unlink, path: path)
        try real.unlink(path)
    }

    func makeDirectory(_ path: String, mode: UInt32) throws(SystemCallError) {
        try check(.makeDirectory, path: path)
        try real.makeDirectory(path, mode: mode)
    }

    func changeMode(atPath path: String, to mode: UInt32) throws(SystemCallError) {
        try check(.changeMode, path: path)
        try real.changeMode(atPath: path, to: mode)
    }

    func listDirectory(_ path: String) throws(SystemCallError) -> [String] {
        try real.listDirectory(path)
    }

    func lock(_ descriptor: Int32, _ operation: FileLockOperation) throws(SystemCallError) {
        try check(.lock, path: path(of: descriptor))
        if operation == .exclusive { onBlockingLock?() }
        try real.lock(descriptor, operation)
    }
}
