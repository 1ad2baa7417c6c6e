import Foundation
import SessionKit
import Synchronization

/// The real date plus an offset the test moves forward.
///
/// Real providers stamp `iat` and `exp` with real time, so the session's wall clock must stay
/// close to it; moving the offset makes a token due (or a key-set fetch old) without waiting.
final class OffsetWallClock: Sendable {
    private let offset = Locked<TimeInterval>(0)

    func now() -> Date {
        Date().addingTimeInterval(offset.withLock { $0 })
    }

    func advance(by seconds: TimeInterval) {
        offset.withLock { $0 += seconds }
    }

    /// Moves the offset so that `now()` is `date`.
    func advance(to date: Date) {
        let gap = date.timeIntervalSince(now())
        if gap > 0 { advance(by: gap) }
    }
}
