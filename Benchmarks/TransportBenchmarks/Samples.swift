/// Repeated observations of one quantity, reported by their median so a noisy request does not move the result.
struct Samples: Sendable {
    private(set) var values: [Double] = []

    mutating func add(_ value: Double) {
        values.append(value)
    }

    var median: Double { quantile(0.5) }
    var lowerQuartile: Double { quantile(0.25) }
    var upperQuartile: Double { quantile(0.75) }
    var minimum: Double { values.min() ?? .nan }
    var maximum: Double { values.max() ?? .nan }

    /// Linear interpolation between the closest ranks; NaN when empty.
    func quantile(_ q: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = Int(position.rounded(.up))
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }
}

extension Duration {
    /// The duration in milliseconds, as a floating-point number.
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e3 + Double(attoseconds) / 1e15
    }
}
