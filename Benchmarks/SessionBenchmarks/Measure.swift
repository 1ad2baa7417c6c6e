import Foundation

/// One reported number: what was measured, its value, and the bound it is held to.
struct Measure: Sendable {
    /// Stable dotted name, e.g. `fast-path.ratio`.
    var name: String
    var value: Double
    var unit: String
    /// The bound as text (`<= 2`, `== 1`), or `nil` for a number shown for context only.
    var target: String?
    /// Whether `value` meets `target`; context-only numbers always pass.
    var pass: Bool

    init(_ name: String, _ value: Double, unit: String, atMost limit: Double) {
        self.init(name, value, unit: unit, target: "<= \(Self.format(limit))", pass: value <= limit)
    }

    init(_ name: String, _ value: Double, unit: String, equalTo expected: Double) {
        self.init(name, value, unit: unit, target: "== \(Self.format(expected))", pass: value == expected)
    }

    init(_ name: String, _ value: Double, unit: String, target: String? = nil, pass: Bool = true) {
        self.name = name
        self.value = value
        self.unit = unit
        self.target = target
        self.pass = pass
    }

    /// One JSON object on one line, keys in a fixed order.
    var jsonLine: String {
        let target = self.target.map(Self.quoted) ?? "null"
        return
            #"{"name":\#(Self.quoted(name)),"value":\#(Self.format(value)),"unit":\#(Self.quoted(unit)),"target":\#(target),"pass":\#(pass)}"#
    }

    /// A number with at most three decimals and no trailing zeros (JSON-safe: never NaN or infinite).
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case let s where s.value < 0x20: out += String(format: "\\u%04x", s.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
