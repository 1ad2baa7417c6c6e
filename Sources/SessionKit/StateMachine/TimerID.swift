/// Identifies one timer the machine asked for; a fired timer with a stale id is ignored.
///
/// It carries the timer's ``CancelHandle``: cancelling the timer ends its sleep at once. Ids
/// compare by ``raw`` only.
struct TimerID: Hashable, Sendable {
    var raw: UInt64
    let cancel = CancelHandle()

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.raw == rhs.raw }

    func hash(into hasher: inout Hasher) {
        hasher.combine(raw)
    }
}
