/// The subscribers and observers of one actor's events, kept by that actor.
///
/// Streams buffer without bound, like the session's, so a slow reader never makes the actor wait;
/// observers run synchronously where the event happens, for recorders that must see events in
/// order with the app's own calls.
struct EventBroadcaster<Event: Sendable> {
    private var subscribers: [UInt64: AsyncStream<Event>.Continuation] = [:]
    private var lastSubscriber: UInt64 = 0
    private var observers: [@Sendable (Event) -> Void] = []

    /// A new stream of every later event; `onTermination` receives the subscriber's id so the
    /// owner can call ``remove(_:)`` when the reader stops.
    mutating func subscribe(onTermination: @escaping @Sendable (UInt64) -> Void) -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        lastSubscriber += 1
        let id = lastSubscriber
        subscribers[id] = continuation
        continuation.onTermination = { _ in onTermination(id) }
        return stream
    }

    mutating func remove(_ id: UInt64) {
        subscribers[id] = nil
    }

    mutating func addObserver(_ observer: @escaping @Sendable (Event) -> Void) {
        observers.append(observer)
    }

    func publish(_ event: Event) {
        for observer in observers { observer(event) }
        for continuation in subscribers.values { continuation.yield(event) }
    }
}
