public import Foundation
import SessionKitCore

/// The session's estimate of the provider's clock, from the `Date` header of its token responses
/// (RFC 9110 §6.6.1), and the times it judges by it: the `iat` of DPoP proofs and the `iat`,
/// `exp` and `nbf` checks of id_tokens.
///
/// A device clock set by hand can be minutes off; a provider then refuses every proof ("`iat`
/// outside the window") and the session refuses every id_token ("issued in the future"). Each
/// token response tells the provider's time to the second: the offset is that time minus the
/// device's at the midpoint of the request, all on the session's injected wall clock.
///
/// The estimate is bounded by ``bound`` (one hour by default,
/// ``SessionConfiguration/serverClockBound``): a header further off than that is reported
/// (``latestEstimate`` with ``Estimate/isApplied`` false) and not used, and the device's own clock
/// is used instead. Every time judgement the offset moves is a judgement on the provider's own
/// signed times, and the `Date` comes over the same connection as the id_token it helps judge; the
/// bound is there so that a broken header (a proxy's, a server's with a dead clock) can never move
/// those judgements by more than an hour, while a device whose clock drifted or was set by hand by
/// some minutes is corrected. An offset the measurement cannot tell from zero (within a second
/// plus half the request's round trip) is taken as zero.
public final class ServerClock: Sendable, CustomStringConvertible {
    /// One measurement of the provider's clock.
    public struct Estimate: Sendable, Hashable {
        /// The provider's clock minus the device's, in seconds: positive when the device is behind.
        public let offset: TimeInterval
        /// When it was measured, on the device's clock.
        public let measuredAt: Date
        /// Whether it is within the bound and so used.
        public let isApplied: Bool

        /// An estimate; the session makes them, tests may too.
        public init(offset: TimeInterval, measuredAt: Date, isApplied: Bool) {
            self.offset = offset
            self.measuredAt = measuredAt
            self.isApplied = isApplied
        }
    }

    /// The largest offset used, either way.
    public let bound: Duration
    private let boundSeconds: TimeInterval
    private let state = Locked<Estimate?>(nil)

    /// A clock with no estimate yet (offset zero) that uses estimates up to `bound` either way.
    public init(bound: Duration = .seconds(3600)) {
        self.bound = bound
        let components = bound.components
        self.boundSeconds = abs(Double(components.seconds) + Double(components.attoseconds) * 1e-18)
    }

    /// The latest measurement, used or not; nil before the first token response with a `Date`.
    public var latestEstimate: Estimate? {
        state.withLock { $0 }
    }

    /// The offset in use, in seconds: the latest estimate's when it is within the bound, else zero.
    public var offset: TimeInterval {
        state.withLock { $0.map { $0.isApplied ? $0.offset : 0 } ?? 0 }
    }

    /// `deviceTime` on the provider's clock, as best known.
    public func serverTime(at deviceTime: Date) -> Date {
        let offset = self.offset
        return offset == 0 ? deviceTime : deviceTime.addingTimeInterval(offset)
    }

    /// Records one answer's `Date` header (ignored when it is not an IMF-fixdate) for a request sent
    /// at `sentAt` and answered at `receivedAt`, both on the device's clock. Returns the estimate,
    /// or nil when the header said nothing usable.
    @discardableResult
    func record(dateHeader: String?, sentAt: Date, receivedAt: Date) -> Estimate? {
        guard let dateHeader, let seconds = HTTPDate.secondsSince1970(dateHeader) else { return nil }
        let roundTrip = max(0, receivedAt.timeIntervalSince(sentAt))
        let midpoint = sentAt.timeIntervalSince1970 + roundTrip / 2
        // The header truncates the server's time to the second: its middle is the best guess.
        var offset = Double(seconds) + 0.5 - midpoint
        if abs(offset) <= 1 + roundTrip / 2 { offset = 0 }
        let estimate = Estimate(offset: offset, measuredAt: receivedAt, isApplied: abs(offset) <= boundSeconds)
        state.withLock { $0 = estimate }
        return estimate
    }

    /// The offset and whether it is used; nothing secret is kept here.
    public var description: String {
        guard let estimate = latestEstimate else { return "ServerClock(no estimate)" }
        return "ServerClock(offset \(estimate.offset) s, \(estimate.isApplied ? "applied" : "beyond the bound, not applied"))"
    }
}
