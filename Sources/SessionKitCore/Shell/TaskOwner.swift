/// The one owner of every task a shell (a session, a handoff coordinator, a key manager) starts.
///
/// Work handed to ``spawn(_:)`` runs as a plain child of one discarding task group; nothing it
/// starts outlives ``shutdown()``, which refuses new work, cancels every child and returns once
/// all of them have ended. Work that must end on its own (a timer, a presentation, a refresh)
/// runs with ``spawn(cancelledBy:_:)``: its child races it against a ``CancelToken`` the state
/// machine keeps. There is no other kind of task.
///
/// Who runs the group is the host's choice. By default (`hosted: false`) the owner starts one task
/// of its own on the first ``spawn(_:)``, because an app makes a session from synchronous code
/// that has no task group to lend it. A host that runs its own task tree (a server, a CLI, a
/// scoped `withSession`) creates the owner with `hosted: true` and calls ``run()`` from a task of
/// its own: the group then lives in that task, and work spawned before ``run()`` starts waits for it.
package final class TaskOwner: Sendable {
    package typealias Work = @Sendable () async -> Void

    /// Everything the owner keeps, apart from the owner itself: the task that runs the group holds
    /// this and never the owner, so a session nobody holds any more is freed (and abandons its work).
    private final class Shared: Sendable {
        struct State {
            /// Handed over and not started yet, in order (a started one's slot is empty).
            var queue: [Work?] = []
            var queueStart = 0
            /// The task running the group, parked until there is work.
            var driver: UnsafeContinuation<Work?, Never>?
            /// Admitted and not ended, queued work included.
            var live = 0
            var shutDown = false
            /// Whether a task runs (or ran) the group: the owner's own, or ``TaskOwner/run()``'s.
            var driven = false
            /// The owner's own task, when not hosted.
            var task: Task<Void, Never>?

            /// The next work, taken out of the queue. Its slot is emptied here, while the caller
            /// holds a reference: a work's closure may hold the last reference to its shell, whose
            /// `deinit` takes this lock, so none may be released under it.
            mutating func dequeue() -> Work? {
                guard queueStart < queue.count else { return nil }
                let work = queue[queueStart]
                queue[queueStart] = nil
                queueStart += 1
                if queueStart == queue.count { (queue, queueStart) = ([], 0) }
                return work
            }
        }

        let state = Locked(State())
        /// Completed once shut down with no child left.
        let drained = Completion()
        let changes = SessionChangeFeed()
        /// The cancellations on their way to this owner's work.
        let settling: CancellationSettling

        init() {
            settling = CancellationSettling(changes: changes)
        }

        /// The next work to start, and whether the owner is stopping (it then starts cancelled);
        /// `nil` once stopping with nothing left. The running task's cancellation stops the owner.
        func next() async -> (work: Work, stopping: Bool)? {
            let handed: Work? = await withTaskCancellationHandler {
                await withUnsafeContinuation { (continuation: UnsafeContinuation<Work?, Never>) in
                    let ready: Work?? = state.withLock { state in
                        if Task.isCancelled { state.shutDown = true }
                        if let work = state.dequeue() { return .some(work) }
                        if state.shutDown { return .some(nil) }
                        state.driver = continuation
                        return .none
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            } onCancel: {
                let driver = state.withLock { state in
                    defer { state.driver = nil }
                    return state.driver
                }
                driver?.resume(returning: nil)
            }
            return state.withLock { state in
                if let handed { return (handed, state.shutDown) }
                // Woken without work: stopping. Work handed over meanwhile still starts, cancelled.
                state.shutDown = true
                return state.dequeue().map { ($0, true) }
            }
        }

        func childEnded() {
            let drained = state.withLock { state in
                state.live -= 1
                return state.live == 0 && state.shutDown
            }
            if drained { self.drained.complete() }
            changes.notify()
        }

        /// Runs the group until the owner stops and no work is left: every work a plain child;
        /// where the system has immediate tasks a child starts on this thread and runs until it
        /// first suspends, with no hand-over to another thread before its work begins. Work that
        /// arrives while stopping still runs, cancelled from its first line, so it can answer whoever
        /// waits on it.
        func drive(whenCancelled: (@Sendable () -> Void)? = nil) async {
            await withDiscardingTaskGroup { group in
                // Inside the group, so the host's cancellation reaches this handler before the
                // group's children: the shell stops its machine first (every caller answered for
                // the shutdown), and the children's own answers then find it stopped.
                await withTaskCancellationHandler {
                    while let (work, stopping) = await next() {
                        if stopping { group.cancelAll() }
                        if #available(macOS 26, iOS 26, watchOS 26, tvOS 26, visionOS 26, *) {
                            group.addImmediateTask {
                                await work()
                                self.childEnded()
                            }
                        } else {
                            group.addTask {
                                await work()
                                self.childEnded()
                            }
                        }
                    }
                } onCancel: {
                    whenCancelled?()
                }
                group.cancelAll()
            }
            if state.withLock({ $0.live == 0 }) { drained.complete() }
        }

        /// Refuses new work; returns the parked driver and the owner's task, for the caller to end
        /// outside the lock, and whether a task runs the group (work handed over still needs one).
        func stop() -> (driver: UnsafeContinuation<Work?, Never>?, task: Task<Void, Never>?, driven: Bool) {
            let (driver, task, driven, drained): (UnsafeContinuation<Work?, Never>?, Task<Void, Never>?, Bool, Bool) = state.withLock {
                state in
                state.shutDown = true
                defer { state.driver = nil }
                return (state.driver, state.task, state.driven, state.live == 0)
            }
            if drained { self.drained.complete() }
            return (driver, task, driven)
        }
    }

    private let shared = Shared()
    private let hosted: Bool

    /// Creates an owner with no work. With `hosted`, the group runs in the task that calls ``run()``.
    package init(hosted: Bool = false) {
        self.hosted = hosted
    }

    /// Notified whenever a child starts or ends, for tests that wait until the work is done.
    package var changes: SessionChangeFeed { shared.changes }

    /// How many children have been started (or handed over) and not ended.
    package var liveChildren: Int {
        shared.state.withLock { $0.live }
    }

    /// Whether ``shutdown()`` (or ``abandon()``) has begun.
    package var isShutDown: Bool {
        shared.state.withLock { $0.shutDown }
    }

    /// Starts `work` as a child. Returns `false`, not running it, once the owner is shut down.
    @discardableResult
    package func spawn(_ work: @escaping Work) -> Bool {
        enum Admission {
            case refused
            case handedToDriver(UnsafeContinuation<Work?, Never>)
            case queued(startOwnTask: Bool)
        }
        let shared = self.shared
        let admission: Admission = shared.state.withLock { state in
            guard !state.shutDown else { return .refused }
            state.live += 1
            if let driver = state.driver {
                state.driver = nil
                return .handedToDriver(driver)
            }
            state.queue.append(work)
            guard !hosted, !state.driven else { return .queued(startOwnTask: false) }
            state.driven = true
            return .queued(startOwnTask: true)
        }
        switch admission {
        case .refused:
            return false
        case .handedToDriver(let driver):
            driver.resume(returning: work)
        case .queued(let startOwnTask):
            guard startOwnTask else { break }
            let task = Task { await shared.drive() }
            // A shutdown between the admission and here found no task to cancel: cancel it now.
            let stopped: Bool = shared.state.withLock { state in
                state.task = task
                return state.shutDown
            }
            if stopped { task.cancel() }
        }
        shared.changes.notify()
        return true
    }

    /// Starts `work` as a child that `token` cancels on its own (``CancelToken/race(_:settling:)``).
    @discardableResult
    package func spawn(cancelledBy token: CancelToken, _ work: @escaping Work) -> Bool {
        let settling = shared.settling
        return spawn { await token.race(work, settling: settling) }
    }

    /// How many cancellations were sent to this owner's work and have not reached it yet: each
    /// lands one hop after ``CancelToken/cancel()``, on the thread of the child it cancels.
    /// ``changes`` is told when the count drops to zero.
    package var cancellationsInFlight: Int {
        shared.settling.inFlight
    }

    /// Runs the group in the calling task, for an owner made with `hosted: true`, until
    /// ``shutdown()`` or until the calling task is cancelled, which shuts the owner down; returns
    /// once every child has ended. On an owner that runs its own task, or when a ``run()`` already
    /// runs, it waits until the owner is shut down and every child has ended; its cancellation
    /// shuts the owner down too.
    ///
    /// `whenCancelled` runs, once, on the thread that cancels the calling task, before any child
    /// sees the cancellation: a shell stops its machine there.
    package func run(whenCancelled: (@Sendable () -> Void)? = nil) async {
        let drives: Bool = shared.state.withLock { state in
            guard hosted, !state.driven else { return false }
            state.driven = true
            return true
        }
        if drives {
            await shared.drive(whenCancelled: whenCancelled)
        } else {
            await withTaskCancellationHandler {
                await shared.drained.wait()
            } onCancel: { [shared] in
                whenCancelled?()
                let stopped = shared.stop()
                stopped.driver?.resume(returning: nil)
                stopped.task?.cancel()
            }
            // Cancelled: the owner's own task ends once every child has.
            await shared.state.withLock({ $0.task })?.value
        }
        shared.changes.notify()
    }

    /// Refuses new work, cancels every child, and returns once every child has ended. Work handed
    /// over and not started yet still runs, cancelled from its first line, so it can answer
    /// whoever waits on it; on a hosted owner whose ``run()`` never started, it runs here.
    package func shutdown() async {
        let stopped = shared.stop()
        stopped.driver?.resume(returning: nil)
        stopped.task?.cancel()
        if !stopped.driven,
            shared.state.withLock({ state in
                // Nobody ran the group: this call does, for the work left.
                defer { state.driven = true }
                return !state.driven
            })
        {
            await shared.drive()
        }
        await shared.drained.wait()
        await stopped.task?.value
        shared.changes.notify()
    }

    /// Like ``shutdown()``, without waiting: for an owner whose shell is gone.
    package func abandon() {
        let stopped = shared.stop()
        stopped.driver?.resume(returning: nil)
        stopped.task?.cancel()
    }
}
