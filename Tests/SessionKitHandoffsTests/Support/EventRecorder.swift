import SessionKit

/// Collects events from a synchronous observer, in order.
final class EventRecorder<Event: Sendable>: Sendable {
    private let events = Locked<[Event]>([])

    var recorded: [Event] {
        events.withLock { $0 }
    }

    func record(_ event: Event) {
        events.withLock { $0.append(event) }
    }
}

/// Reads `stream` until an element satisfies `condition` (or the stream ends); returns whether
/// one did. Used to wait until a coordinator or handoff has reached a step, without sleeping.
func waitFor<Element: Sendable>(_ stream: AsyncStream<Element>, _ condition: (Element) -> Bool) async -> Bool {
    for await element in stream where condition(element) {
        return true
    }
    return false
}
