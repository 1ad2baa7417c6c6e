import Foundation
package import SessionKitCore

/// The one owner of every task a session (or a component of it) starts.
///
/// Work is handed to ``spawn(_:)`` and runs as a child of one discarding task group, run by one
/// owner task; nothing the owner starts outlives ``shutdown()``, which cancels every child and
/// returns once all of them have ended. A child started with `cancellable: true` can also be
/// cancelled on its own (``cancel(_:)``): a timer that is no longer wanted, a presentation the
/// handoff left, a refresh a sign-out overtook.
///
/// The owner task is started on the first ``spawn(_:)``, so an owner that is never used starts
/// nothing. It is the one unstructured task of a session: a session is made from synchronous app
/// code, which has no task group of its own to lend it.
package final class TaskOwner: Sendable {
    /// Identifies one child, for ``cancel(_:)``.
    package struct ChildID: Hashable, Sendable {
        let raw: UInt64
    }

    private typealias Job = @Sendable () async -> Void

    private enum Phase {
        case idle
        case running(AsyncStream<Job>.Continuation, Task<Void, Never>)
        case shutDown(Task<Void, Never>?)
    }

    private struct State {
        var phase = Phase.idle
        var nextID: UInt64 = 0
        /// Every child that has not ended, with the handle that cancels it on its own.
        var live: [ChildID: ChildHandle?] = [:]
        /// Completed once shut down with no child left.
        let drained = Completion()
    }

    private let state = Locked(State())
    /// Notified whenever a child starts or ends, for tests that wait until the work is done.
    package let changes = SessionChangeFeed()

    /// Creates an owner with no work.
    package init() {}

    /// How many children have been started and not ended.
    package var liveChildren: Int {
        state.withLock { $0.live.count }
    }

    /// Whether ``shutdown()`` has begun.
    package var isShutDown: Bool {
        state.withLock {
            if case .shutDown = $0.phase { return true }
            return false
        }
    }

    /// Starts `work` as a child. Returns its id, or `nil` once the owner is shut down (the work
    /// is then not run). With `cancellable`, ``cancel(_:)`` ends it on its own.
    ///
    /// With `startingHere`, for work the calling thread is about to wait for (a refresh its caller
    /// awaits), the work starts on this thread and runs until it first suspends, in a task of its
    /// own that inherits nothing from the caller (``ChildHandle/startHere(_:)``): when it ends
    /// before suspending (an answer already in hand), no other thread is woken at all; otherwise
    /// a child of the group joins it, so the owner holds it like any other. Never on the main
    /// thread, whose caller must not run the work, and only where the system has immediate tasks.
    @discardableResult
    package func spawn(
        cancellable: Bool = false, startingHere: Bool = false, _ work: @escaping @Sendable () async -> Void
    ) -> ChildID? {
        if startingHere, !Thread.isMainThread, #available(macOS 26, iOS 26, watchOS 26, tvOS 26, visionOS 26, *) {
            return spawnHere(work)
        }
        let signal = cancellable ? ChildHandle() : nil
        guard let (id, continuation) = admit(signal) else { return nil }
        changes.notify()
        let job: Job = { [self] in
            if let signal {
                await signal.run(work)
            } else {
                await work()
            }
            childEnded(id)
        }
        if case .terminated = continuation.yield(job) {
            // Shut down between the admission and the hand-over: the work never runs.
            childEnded(id)
            return nil
        }
        return id
    }

    private func spawnHere(_ work: @escaping @Sendable () async -> Void) -> ChildID? {
        let handle = ChildHandle()
        guard let (id, _) = admit(handle) else { return nil }
        changes.notify()
        handle.startHere { [self] in
            await work()
            childEnded(id)
        }
        // Nothing to join when it ended before it first suspended, or once shutting down:
        // ``shutdown()`` cancels every live child, this one included, and waits for each to end.
        let joining: AsyncStream<Job>.Continuation? = state.withLock { state in
            guard state.live[id] != nil, case .running(let continuation, _) = state.phase else { return nil }
            return continuation
        }
        _ = joining?.yield { await handle.join() }
        return id
    }

    /// Admits one child: its id, and the stream that hands jobs to the owner task (started on
    /// the first admission); `nil` once shut down.
    private func admit(_ handle: ChildHandle?) -> (ChildID, AsyncStream<Job>.Continuation)? {
        state.withLock { state in
            let continuation: AsyncStream<Job>.Continuation
            switch state.phase {
            case .shutDown:
                return nil
            case .running(let running, _):
                continuation = running
            case .idle:
                let (stream, made) = AsyncStream.makeStream(of: Job.self)
                state.phase = .running(made, Self.startOwner(stream))
                continuation = made
            }
            state.nextID += 1
            let id = ChildID(raw: state.nextID)
            state.live[id] = handle
            return (id, continuation)
        }
    }

    /// Cancels one child started with `cancellable: true`; an id that has ended is ignored.
    package func cancel(_ id: ChildID) {
        let handle = state.withLock { $0.live[id] ?? nil }
        // Outside the lock: cancelling runs the child's cancellation handlers on this thread, at
        // once (a timer's sleeper is gone from the clock when this returns).
        handle?.cancel()
    }

    /// Cancels every child, refuses new work, and returns once every child has ended.
    package func shutdown() async {
        let (owner, handles, drained): (Task<Void, Never>?, [ChildHandle], Completion) = state.withLock { state in
            let owner: Task<Void, Never>?
            switch state.phase {
            case .idle:
                owner = nil
            case .running(let continuation, let task):
                continuation.finish()
                owner = task
            case .shutDown(let task):
                owner = task
            }
            state.phase = .shutDown(owner)
            if state.live.isEmpty { state.drained.complete() }
            return (owner, state.live.values.compactMap { $0 }, state.drained)
        }
        owner?.cancel()
        // A child started on its caller's thread may not be in the group yet: cancelled here.
        for handle in handles { handle.cancel() }
        await owner?.value
        await drained.wait()
        changes.notify()
    }

    /// Like ``shutdown()``, without waiting: for an owner whose session is gone.
    package func abandon() {
        let (owner, handles): (Task<Void, Never>?, [ChildHandle]) = state.withLock { state in
            guard case .running(let continuation, let task) = state.phase else { return (nil, []) }
            continuation.finish()
            state.phase = .shutDown(task)
            return (task, state.live.values.compactMap { $0 })
        }
        owner?.cancel()
        for handle in handles { handle.cancel() }
    }

    private func childEnded(_ id: ChildID) {
        state.withLock { state in
            state.live.removeValue(forKey: id)
            if state.live.isEmpty, case .shutDown = state.phase { state.drained.complete() }
        }
        changes.notify()
    }

    /// The owner task: every job becomes a child of one discarding task group, which ends once the
    /// stream is finished and every child has ended. It captures the stream only, never a
    /// session, so a session nobody holds any more is freed.
    private static func startOwner(_ stream: AsyncStream<Job>) -> Task<Void, Never> {
        Task {
            await withDiscardingTaskGroup { group in
                for await job in stream {
                    // Where the system has immediate tasks, the child starts on this thread and
                    // runs until it first suspends: a refresh costs no hand-over to another
                    // thread before its work begins.
                    if #available(macOS 26, iOS 26, watchOS 26, tvOS 26, visionOS 26, *) {
                        group.addImmediateTask { await job() }
                    } else {
                        group.addTask { await job() }
                    }
                }
            }
        }
    }

}

/// Lets one child of the owner be cancelled on its own, synchronously.
///
/// The work runs in a task the group's child holds and awaits (the only way to cancel one member
/// of a task group on its own): cancelling the handle cancels that task at once, and cancelling
/// the group (shutdown) reaches it through the child's cancellation handler. The task never
/// outlives the child that awaits it, or, for a task started on its caller's thread that the
/// group has not joined, the owner's shutdown, which waits for every admitted child.
final class ChildHandle: Sendable {
    private enum Slot {
        case notStarted(cancelled: Bool)
        /// The task is being made outside the lock; a cancellation meanwhile is applied once it is.
        case starting(cancelled: Bool)
        case running(Task<Void, Never>)
        case ended
    }

    private let slot = Locked(Slot.notStarted(cancelled: false))

    /// Starts `work` on this thread in a task that inherits nothing from the caller, and returns
    /// once it first suspends or ends; ``join()`` then waits for it.
    func startHere(_ work: @escaping @Sendable () async -> Void) {
        start(work, inheriting: false)
    }

    /// Runs `work` to its end, or until ``cancel()`` or the calling task's cancellation.
    func run(_ work: @escaping @Sendable () async -> Void) async {
        start(work, inheriting: true)
        await join()
    }

    /// Waits for the started work; the calling task's cancellation cancels it.
    func join() async {
        guard case .running(let task) = slot.withLock({ $0 }) else { return }
        await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        slot.withLock { $0 = .ended }
    }

    /// Makes the task outside the lock. Where the system has immediate tasks it starts on this
    /// thread and runs until it first suspends, with no hand-over to another thread; a
    /// cancellation that arrives meanwhile is applied right after.
    private func start(_ work: @escaping @Sendable () async -> Void, inheriting: Bool) {
        let cancelledBeforeStart: Bool? = slot.withLock { slot in
            guard case .notStarted(let cancelled) = slot else { return nil }
            slot = .starting(cancelled: cancelled)
            return cancelled
        }
        guard let cancelledBeforeStart else { return }
        let task: Task<Void, Never>
        if #available(macOS 26, iOS 26, watchOS 26, tvOS 26, visionOS 26, *), !cancelledBeforeStart {
            task = inheriting ? Task.immediate { await work() } : Task.immediateDetached { await work() }
        } else {
            // Cancelled before it started: the work still runs, cancelled, so it can report back
            // (a refresh its order's end, a timer nothing) like work cancelled while it runs.
            task = inheriting ? Task { await work() } : Task.detached { await work() }
            if cancelledBeforeStart { task.cancel() }
        }
        let cancelledWhileStarting = slot.withLock { slot in
            guard case .starting(let cancelled) = slot else { return false }
            slot = .running(task)
            return cancelled
        }
        if cancelledWhileStarting { task.cancel() }
    }

    /// Cancels the work now (or before it starts).
    func cancel() {
        let task: Task<Void, Never>? = slot.withLock { slot in
            switch slot {
            case .notStarted: slot = .notStarted(cancelled: true)
            case .starting: slot = .starting(cancelled: true)
            case .running(let task): return task
            case .ended: break
            }
            return nil
        }
        task?.cancel()
    }
}

/// Something tasks can wait for the end of (an exchange, a reset), without holding a task.
final class Completion: Sendable {
    private struct State {
        var done = false
        var waiters: [UInt64: UnsafeContinuation<Void, Never>] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Locked(State())

    /// Marks it ended; every wait returns, now and later.
    func complete() {
        let waiters = state.withLock { state in
            state.done = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until ``complete()``, or until the calling task is cancelled (only this wait ends).
    func wait() async {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.done || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
