import Foundation

/// When an access token is due for a refresh and when it has expired: the one rule every part of
/// the session applies (the machine's hand-out, restore, the refresh and disconnect procedures).
///
/// A token is *due* from `leadTime` before its expiry, so callers get a fresh one before the old
/// one stops working; a session without a refresh token cannot refresh early, so for it "due"
/// means "expired". The lead time is a preference, not a cliff: while a refresh backs off after a
/// failure that may pass, the current token is still handed out until it *expires*.
struct RefreshTiming: Sendable, Equatable {
    /// How long before expiry a refresh is due.
    var leadTime: Duration

    /// The moment `expiresAt`'s token becomes due (`canRefresh` false: its expiry).
    func dueAt(expiresAt: Date, canRefresh: Bool = true) -> Date {
        canRefresh ? expiresAt.addingTimeInterval(-Self.seconds(leadTime)) : expiresAt
    }

    /// Whether a token expiring at `expiresAt` is due at `now`.
    func isDue(expiresAt: Date, canRefresh: Bool = true, now: Date) -> Bool {
        now >= dueAt(expiresAt: expiresAt, canRefresh: canRefresh)
    }

    /// Whether a token expiring at `expiresAt` has expired at `now`.
    func isExpired(expiresAt: Date, now: Date) -> Bool {
        now >= expiresAt
    }

    /// Whole seconds left until `expiresAt` at `now`, never negative (for transition reasons).
    func secondsLeft(until expiresAt: Date, now: Date) -> Int {
        max(0, Int(expiresAt.timeIntervalSince(now).rounded(.down)))
    }

    /// A duration in seconds.
    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
