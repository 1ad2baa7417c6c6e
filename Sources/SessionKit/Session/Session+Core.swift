import Foundation

extension Session {
    /// Everything the session keeps, behind its one lock: the machine, the jitter source, the
    /// subscribers, and the queue of actions still to perform. The children the machine's actions
    /// start are not recorded here: the machine keeps the handle that cancels each.
    struct Core {
        var machine: Machine
        var random: AnyRandomNumberGenerator
        /// Whether ``Session/shutdown()`` has begun.
        var isShutDown = false

        /// Actions produced by steps and not performed yet, each with its position in the order
        /// of all actions ever produced (so a subscriber added in between gets exactly the later ones).
        private(set) var pending: [(index: UInt64, action: Machine.Action)] = []
        private var produced: UInt64 = 0
        /// Whether some thread is performing `pending` (only one ever does, so actions run in order).
        private var performing = false
        private var subscribers: [UInt64: Subscriber] = [:]
        private var observers: [Observer] = []
        private var nextSubscriber: UInt64 = 0
        private var nextObserver: UInt64 = 0

        struct Subscriber: Sendable {
            var continuation: AsyncStream<SessionEvent>.Continuation
            /// The first action index this subscriber hears of.
            var from: UInt64
        }

        struct Observer: Sendable {
            var call: @Sendable (SessionEvent) -> Void
            var from: UInt64
            var id: UInt64
        }

        init(machine: Machine, random: AnyRandomNumberGenerator) {
            self.machine = machine
            self.random = random
        }

        /// Queues `actions`; returns whether the caller must now perform the queue (no one else is).
        mutating func enqueue(_ actions: [Machine.Action]) -> Bool {
            for action in actions {
                pending.append((produced, action))
                produced += 1
            }
            guard !performing, !pending.isEmpty else { return false }
            performing = true
            return true
        }

        /// The next batch to perform, or `nil` (and the performer steps down) when none is left.
        mutating func takePending() -> [(index: UInt64, action: Machine.Action)]? {
            guard !pending.isEmpty else {
                performing = false
                return nil
            }
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }

        mutating func addSubscriber(_ continuation: AsyncStream<SessionEvent>.Continuation) -> UInt64 {
            nextSubscriber += 1
            subscribers[nextSubscriber] = Subscriber(continuation: continuation, from: produced)
            return nextSubscriber
        }

        mutating func removeSubscriber(_ id: UInt64) {
            subscribers[id] = nil
        }

        @discardableResult
        mutating func addObserver(_ observer: @escaping @Sendable (SessionEvent) -> Void) -> UInt64 {
            nextObserver += 1
            observers.append(Observer(call: observer, from: produced, id: nextObserver))
            return nextObserver
        }

        mutating func removeObserver(_ id: UInt64) {
            observers.removeAll { $0.id == id }
        }

        /// Who hears of the event at action `index`.
        func audience(of index: UInt64) -> (
            observers: [@Sendable (SessionEvent) -> Void], streams: [AsyncStream<SessionEvent>.Continuation]
        ) {
            (observers.filter { $0.from <= index }.map(\.call), subscribers.values.filter { $0.from <= index }.map(\.continuation))
        }

        /// Shutting down: no more subscribers; the ones there are are returned to be finished.
        mutating func endSubscriptions() -> [AsyncStream<SessionEvent>.Continuation] {
            isShutDown = true
            defer { subscribers = [:] }
            return subscribers.values.map(\.continuation)
        }
    }
}

/// Type-erases a random source so the session can hold any generator.
struct AnyRandomNumberGenerator: RandomNumberGenerator, Sendable {
    private var base: any RandomNumberGenerator & Sendable

    init(_ base: some RandomNumberGenerator & Sendable) {
        self.base = base
    }

    mutating func next() -> UInt64 {
        base.next()
    }
}
