import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The system's wall clock, as a session uses it when the app gives it no clock of its own.
enum SystemWallClock {
    /// "Now", precisely.
    @Sendable static func now() -> Date { Date() }

    /// "Now" to within a few milliseconds (the coarse clock trails the true time by about one
    /// scheduler tick, 1 to 10 ms), for the judgment made on every call: whether the held access
    /// token is inside its lead time. On Linux this reads `CLOCK_REALTIME_COARSE`, which costs
    /// about a quarter of a precise read (about 10 ns against 35–45 ns here, where a whole
    /// fast-path call costs about 100 ns). Trailing by milliseconds means a token may be handed out
    /// that long after it became due, with most of its lead time (tens of seconds) still to go;
    /// a due time that is the expiry itself is never judged on it. Elsewhere it is `Date()`.
    @inline(__always) static func approximateNow() -> Date {
        #if os(Linux) && (canImport(Glibc) || canImport(Musl))
            var time = timespec()
            clock_gettime(CLOCK_REALTIME_COARSE, &time)
            return Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
        #else
            return Date()
        #endif
    }
}
