import Foundation

/// The command line: a mode, `--name value` options and `--flag` switches.
struct ToolOptions {
    enum Failure: Error, CustomStringConvertible {
        case usage(String)

        var description: String {
            switch self {
            case .usage(let message): message
            }
        }
    }

    static let flags: Set<String> = ["trace"]

    let mode: String
    private var values: [String: String] = [:]
    private var switches: Set<String> = []

    init(_ arguments: [String]) throws(Failure) {
        guard let mode = arguments.first else { throw .usage("no mode given") }
        self.mode = mode
        var index = 1
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { throw .usage("unexpected argument \(argument)") }
            let name = String(argument.dropFirst(2))
            if Self.flags.contains(name) {
                switches.insert(name)
                index += 1
                continue
            }
            guard index + 1 < arguments.count else { throw .usage("--\(name) needs a value") }
            values[name] = arguments[index + 1]
            index += 2
        }
    }

    func string(_ name: String) throws(Failure) -> String {
        guard let value = values[name] else { throw .usage("--\(name) is required") }
        return value
    }

    func optionalString(_ name: String) -> String? {
        values[name]
    }

    func url(_ name: String) throws(Failure) -> URL {
        guard let url = URL(string: try string(name)) else { throw .usage("--\(name) is not a URL") }
        return url
    }

    func integer(_ name: String, default fallback: Int? = nil) throws(Failure) -> Int {
        guard let text = values[name] else {
            if let fallback { return fallback }
            throw .usage("--\(name) is required")
        }
        guard let value = Int(text), value >= 0 else { throw .usage("--\(name) must be a non-negative integer") }
        return value
    }

    func flag(_ name: String) -> Bool {
        switches.contains(name)
    }
}
