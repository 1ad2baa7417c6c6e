/// Identifies one timer the machine asked for; a fired timer with a stale id is ignored.
struct TimerID: Hashable, Sendable {
    var raw: UInt64
}
