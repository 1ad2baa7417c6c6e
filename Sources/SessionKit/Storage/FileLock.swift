import Foundation
package import SessionKitCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock(2)` on a lock file, shared with other processes, awaited without blocking
/// the Swift concurrency pool.
///
/// Taking the lock first tries `LOCK_NB`, which costs one system call when nobody else holds it.
/// Only when another process holds it does a dedicated thread make the blocking `flock` call and
/// resume the waiting task through a continuation. A blocking call cannot be interrupted, so a
/// cancelled waiter leaves that thread waiting; the next ``acquire()`` adopts it instead of starting
/// another, and if nobody adopts it the thread gives the lock straight back. At most one such
/// thread exists per `FileLock`. Polling with `LOCK_NB` would avoid the thread but needs a clock and
/// adds up to one poll interval of latency to every contended refresh.
///
/// Callers serialize ``acquire()`` themselves (``LeaseKeeper`` does, with an ``AsyncMutex``):
/// `flock` locks belong to an open file description, so two holders in one process would not
/// exclude each other if they shared one.
package final class FileLock: Sendable {
    private struct Waiter {
        var id: UInt64
        var continuation: CheckedContinuation<Outcome, any Error>
    }

    private enum Outcome {
        case locked(Int32)
        case retry
    }

    private struct State {
        /// The descriptor a background thread is blocked on, with the task waiting for it.
        var blockedDescriptor: Int32?
        var waiter: Waiter?
        var nextID: UInt64 = 0
    }

    private enum Admission {
        case waiting
        case cancelled
        case retry
    }

    private let path: String
    private let fileSystem: any StoreFileSystem
    private let state = Locked(State())

    /// Creates a lock on the file at `path`, which is created (mode 0600) when missing.
    package init(path: String, fileSystem: any StoreFileSystem) {
        self.path = path
        self.fileSystem = fileSystem
    }

    /// Waits until this process holds the lock; returns the descriptor to hand to ``release(_:)``.
    ///
    /// Throws `CredentialStoreError.leaseUnavailable(_:)` when the lock file cannot be opened or
    /// locked, and `CancellationError` when the task is cancelled while waiting.
    package func acquire() async throws -> Int32 {
        while true {
            if state.withLock({ $0.blockedDescriptor == nil }) {
                let descriptor = try openLockFile()
                do {
                    try fileSystem.lock(descriptor, .exclusiveNonBlocking)
                    return descriptor
                } catch  where error.code == EWOULDBLOCK || error.code == EAGAIN {
                    state.withLock { $0.blockedDescriptor = descriptor }
                    startBlockingWait(on: descriptor)
                } catch {
                    try? fileSystem.close(descriptor)
                    throw CredentialStoreError.leaseUnavailable(error.message(for: "lease lock"))
                }
            }
            switch try await awaitBlockingWait() {
            case .locked(let descriptor): return descriptor
            case .retry: continue
            }
        }
    }

    /// Releases a lock taken by ``acquire()``.
    package func release(_ descriptor: Int32) {
        // Closing the last descriptor of the open file description would release the lock as
        // well; unlocking first keeps that true even if a child process inherited a copy.
        try? fileSystem.lock(descriptor, .unlock)
        try? fileSystem.close(descriptor)
    }

    private func openLockFile() throws(CredentialStoreError) -> Int32 {
        let flags = O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW
        do {
            return try fileSystem.open(path, flags: flags, mode: 0o600)
        } catch  where error.code == EROFS || error.code == EACCES || error.code == EPERM {
            // A read-only store can still be locked: flock needs no write access, so readers on a
            // read-only volume still exclude each other.
            do {
                return try fileSystem.open(path, flags: O_RDONLY | O_CLOEXEC | O_NOFOLLOW, mode: 0)
            } catch {
                throw .leaseUnavailable(error.message(for: "lease lock"))
            }
        } catch {
            throw .leaseUnavailable(error.message(for: "lease lock"))
        }
    }

    private func startBlockingWait(on descriptor: Int32) {
        let thread = Thread { [self] in
            let result = Result { () throws(SystemCallError) in try fileSystem.lock(descriptor, .exclusive) }
            finishBlockingWait(on: descriptor, result)
        }
        thread.name = "SessionKit lease wait"
        thread.start()
    }

    private func finishBlockingWait(on descriptor: Int32, _ result: Result<Void, SystemCallError>) {
        let waiter = state.withLock { state -> Waiter? in
            state.blockedDescriptor = nil
            defer { state.waiter = nil }
            return state.waiter
        }
        switch (waiter, result) {
        case (let waiter?, .success):
            waiter.continuation.resume(returning: .locked(descriptor))
        case (let waiter?, .failure(let error)):
            try? fileSystem.close(descriptor)
            waiter.continuation.resume(throwing: CredentialStoreError.leaseUnavailable(error.message(for: "lease lock")))
        case (nil, .success):
            // The task that wanted the lock was cancelled; holding it for nobody would stall the
            // other processes.
            release(descriptor)
        case (nil, .failure):
            try? fileSystem.close(descriptor)
        }
    }

    private func awaitBlockingWait() async throws -> Outcome {
        let id = state.withLock { state in
            defer { state.nextID &+= 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Outcome, any Error>) in
                let admission = state.withLock { state -> Admission in
                    // The background wait may have ended (and given the lock back) since the
                    // caller looked: start over then.
                    guard state.blockedDescriptor != nil else { return .retry }
                    if Task.isCancelled { return .cancelled }
                    state.waiter = Waiter(id: id, continuation: continuation)
                    return .waiting
                }
                switch admission {
                case .waiting: break
                case .retry: continuation.resume(returning: .retry)
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Waiter? in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }
}
