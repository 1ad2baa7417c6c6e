/// One reported number, in the shape every SessionKit benchmark prints: a stable dotted name, the
/// value and unit, the bound it is held to as text (`>= 0.8`) or nil for context, and whether it
/// meets that bound (context-only numbers always pass).
struct Measure {
    let name: String
    let value: Double
    let unit: String
    let target: String?
    let pass: Bool

    /// A number shown for context.
    init(_ name: String, _ value: Double, unit: String) {
        self.name = name
        self.value = value
        self.unit = unit
        self.target = nil
        self.pass = true
    }

    /// A number that must be at least `minimum`.
    init(_ name: String, _ value: Double, unit: String, atLeast minimum: Double) {
        self.name = name
        self.value = value
        self.unit = unit
        self.target = ">= \(Self.format(minimum))"
        self.pass = value >= minimum
    }

    /// One JSON object on one line, keys in a fixed order.
    var jsonLine: String {
        let target = self.target.map { "\"\($0)\"" } ?? "null"
        return #"{"name":"\#(name)","value":\#(Self.format(value)),"unit":"\#(unit)","target":\#(target),"pass":\#(pass)}"#
    }

    /// A table row.
    var row: String {
        Self.pad(name, 40) + Self.pad(Self.format(value), 12) + Self.pad(unit, 10) + Self.pad(target ?? "—", 9)
            + (pass ? "yes" : "NO")
    }

    static var header: String {
        pad("measure", 40) + pad("value", 12) + pad("unit", 10) + pad("target", 9) + "pass"
    }

    /// At most three decimals, no trailing zeros; never NaN or infinite (JSON-safe).
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(Int64((value * 1000).rounded()))
        let negative = text.hasPrefix("-")
        if negative { text.removeFirst() }
        while text.count < 4 { text = "0" + text }
        text.insert(".", at: text.index(text.endIndex, offsetBy: -3))
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return (negative ? "-" : "") + text
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
