import SessionKit
import Synchronization

/// Gathers values appended from concurrent tasks, in the order they arrive.
final class Collector<Element: Sendable>: Sendable {
    private let storage = Locked<[Element]>([])

    func append(_ element: Element) {
        storage.withLock { $0.append(element) }
    }

    var values: [Element] { storage.withLock { $0 } }
}
