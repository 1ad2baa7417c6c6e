import Foundation

/// One reported number, in the shape every SessionKit benchmark prints: a stable dotted name, the
/// value and unit, the bound it is held to as text (`<= 2`, `>= 0.8`, `== 1`) or `nil` for a number
/// shown for context, and whether it meets that bound (context-only numbers always pass).
///
/// With `--json` each measure is one line `{"name":…,"value":…,"unit":…,"target":…,"pass":…}`.
public struct Measure: Sendable {
    /// Stable dotted name, e.g. `fast_path.ratio`.
    public var name: String
    /// The measured value.
    public var value: Double
    /// Its unit (`ns/op`, `x`, `ms`, …).
    public var unit: String
    /// The bound as text, or `nil` for a number shown for context only.
    public var target: String?
    /// Whether `value` meets `target`.
    public var pass: Bool

    /// A number for context, or one with a bound given as text.
    public init(_ name: String, _ value: Double, unit: String, target: String? = nil, pass: Bool = true) {
        self.name = name
        self.value = value
        self.unit = unit
        self.target = target
        self.pass = pass
    }

    /// A number that must be at most `limit`.
    public init(_ name: String, _ value: Double, unit: String, atMost limit: Double) {
        self.init(name, value, unit: unit, target: "<= \(Self.format(limit))", pass: value <= limit)
    }

    /// A number that must be at least `minimum`.
    public init(_ name: String, _ value: Double, unit: String, atLeast minimum: Double) {
        self.init(name, value, unit: unit, target: ">= \(Self.format(minimum))", pass: value >= minimum)
    }

    /// A number that must equal `expected`.
    public init(_ name: String, _ value: Double, unit: String, equalTo expected: Double) {
        self.init(name, value, unit: unit, target: "== \(Self.format(expected))", pass: value == expected)
    }

    /// One JSON object on one line, keys in a fixed order.
    public var jsonLine: String {
        let target = self.target.map(Self.quoted) ?? "null"
        return
            #"{"name":\#(Self.quoted(name)),"value":\#(Self.format(value)),"unit":\#(Self.quoted(unit)),"target":\#(target),"pass":\#(pass)}"#
    }

    /// A table row under ``header``.
    public var row: String {
        Self.pad(name, 40) + Self.pad(Self.format(value), 12) + Self.pad(unit, 10) + Self.pad(target ?? "—", 9)
            + (pass ? "yes" : "NO")
    }

    /// The header of a table of ``row``s.
    public static var header: String {
        pad("measure", 40) + pad("value", 12) + pad("unit", 10) + pad("target", 9) + "pass"
    }

    /// A number with at most three decimals and no trailing zeros; never NaN or infinite, which JSON cannot carry.
    public static func format(_ value: Double) -> String {
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

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
}
