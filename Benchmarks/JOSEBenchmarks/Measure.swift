/// One benchmark result, printed as a table row or as one JSON object per line.
struct Measure {
    let name: String
    let value: Double
    let unit: String
    /// The bound the value must reach (at least, for rates and ratios; at most for times), if any.
    let target: Double?
    let higherIsBetter: Bool

    init(_ name: String, _ value: Double, _ unit: String, target: Double? = nil, higherIsBetter: Bool = true) {
        self.name = name
        self.value = value
        self.unit = unit
        self.target = target
        self.higherIsBetter = higherIsBetter
    }

    var pass: Bool? {
        guard let target else { return nil }
        return higherIsBetter ? value >= target : value <= target
    }

    var json: String {
        let targetText = target.map { format($0) } ?? "null"
        let passText = pass.map { $0 ? "true" : "false" } ?? "null"
        return #"{"name":"\#(name)","value":\#(format(value)),"unit":"\#(unit)","target":\#(targetText),"pass":\#(passText)}"#
    }

    var row: String {
        let comparison = higherIsBetter ? "≥" : "≤"
        let targetText = target.map { "\(comparison) \(format($0))" } ?? "-"
        let passText = pass.map { $0 ? "pass" : "FAIL" } ?? ""
        return pad(name, 34) + pad(format(value), 14) + pad(unit, 14) + pad(targetText, 10) + passText
    }

    static var header: String {
        "name".padding(34) + "value".padding(14) + "unit".padding(14) + "target".padding(10) + "pass"
    }

    private func format(_ number: Double) -> String {
        if number >= 1000 { return String(Int(number.rounded())) }
        let scaled = (number * 1000).rounded() / 1000
        return String(scaled)
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.padding(width)
    }
}

extension String {
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
