/// Times closures over many short rounds and keeps each one's best round: on a shared machine
/// other load only ever slows a round down, so the best short round is the closest reading of
/// the code's own cost.
struct Stopwatch {
    let rounds: Int

    /// Operations per second of `body`, best of `rounds` rounds of `iterations` calls each.
    /// Several bodies given together are timed interleaved, round by round, so they see the same
    /// machine conditions.
    func operationsPerSecond(iterations: Int, _ bodies: [() -> Void]) -> [Double] {
        var best = [Double](repeating: 0, count: bodies.count)
        let clock = ContinuousClock()
        for _ in 0..<rounds {
            for (index, body) in bodies.enumerated() {
                let elapsed = clock.measure {
                    for _ in 0..<iterations { body() }
                }
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                best[index] = max(best[index], Double(iterations) / seconds)
            }
        }
        return best
    }
}
