import Observation
import SessionKit

/// Counts, through `withObservationTracking`, every change Observation reports for one property
/// of a model, and lets a test wait for a number of them.
///
/// Tracking fires once per registration, just before the new value is stored; it is registered
/// again right there, so no change between two is missed.
@MainActor
final class ObservedChanges {
    private(set) var count = 0
    private let read: @MainActor @Sendable () -> Void
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Starts tracking what `read` reads (one property of the model).
    init(_ read: @escaping @MainActor @Sendable () -> some Any) {
        self.read = { _ = read() }
        track()
    }

    /// Returns once at least `count` changes were reported.
    func wait(for count: Int) async {
        guard self.count < count else { return }
        await withCheckedContinuation { waiters.append((count, $0)) }
    }

    private func track() {
        withObservationTracking(read) { [weak self] in
            // The model changes on the main actor, so this runs there, inside the setter.
            MainActor.assumeIsolated { self?.changed() }
        }
    }

    private func changed() {
        count += 1
        track()
        let ready = waiters.filter { $0.count <= count }
        waiters.removeAll { $0.count <= count }
        for waiter in ready { waiter.continuation.resume() }
    }
}

/// Returns once `condition` holds, waking only when Observation reports a change it read.
@MainActor
func observeUntil(_ condition: @escaping @MainActor @Sendable () -> Bool) async {
    while !condition() {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking {
                _ = condition()
            } onChange: {
                continuation.resume()
            }
        }
    }
}
