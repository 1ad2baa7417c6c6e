import Foundation

/// Every way Swift can turn a value into text: `description`, `debugDescription`,
/// `String(describing:)`, `String(reflecting:)`, interpolation, `print`, `debugPrint`, `dump`, and
/// a recursive walk of its `Mirror` that renders every child the same ways.
enum Rendering {
    static func all(_ value: Any) -> [String] {
        var texts: [String] = []
        render(value, into: &texts, depth: 0)
        return texts
    }

    private static func render(_ value: Any, into texts: inout [String], depth: Int) {
        if let described = value as? any CustomStringConvertible { texts.append(described.description) }
        if let debugged = value as? any CustomDebugStringConvertible { texts.append(debugged.debugDescription) }
        texts.append(String(describing: value))
        texts.append(String(reflecting: value))
        texts.append("\(value)")
        var printed = ""
        print(value, to: &printed)
        debugPrint(value, to: &printed)
        texts.append(printed)
        var dumped = ""
        dump(value, to: &dumped)
        texts.append(dumped)
        guard depth < 12 else { return }
        for child in Mirror(reflecting: value).children {
            if let label = child.label { texts.append(label) }
            render(child.value, into: &texts, depth: depth + 1)
        }
    }

    /// The secrets among `secrets` that some rendering of `value` shows.
    static func leaks(of value: Any, secrets: [String]) -> [String] {
        let texts = all(value)
        return secrets.filter { secret in texts.contains { $0.contains(secret) } }
    }
}
