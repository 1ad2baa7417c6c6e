import Foundation
import SessionKitModelCheck

// model-check [DEPTH] [--model NAME]...: explores every model (or those named) to DEPTH inputs and
// prints what it found; exit 1 when an invariant broke, 2 for a wrong command line.
var depth: Int?
var names: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--model":
        guard let name = arguments.popFirst() else {
            FileHandle.standardError.write(Data("--model needs a name: \(ModelCheck.names.joined(separator: ", "))\n".utf8))
            exit(2)
        }
        names.append(name)
    case "--help", "-h":
        print("usage: model-check [DEPTH] [--model NAME]...   models: \(ModelCheck.names.joined(separator: ", "))")
        exit(0)
    default:
        guard let value = Int(argument), value >= 0, depth == nil else {
            FileHandle.standardError.write(Data("not a depth: \(argument)\n".utf8))
            exit(2)
        }
        depth = value
    }
}
let unknown = names.filter { !ModelCheck.names.contains($0) }
guard unknown.isEmpty else {
    FileHandle.standardError.write(Data("unknown model \(unknown[0]); models: \(ModelCheck.names.joined(separator: ", "))\n".utf8))
    exit(2)
}
let reports = ModelCheck.run(depth: depth, only: names.isEmpty ? nil : names) { print($0) }
let states = reports.reduce(0) { $0 + $1.states }
let transitions = reports.reduce(0) { $0 + $1.transitions }
let seconds = reports.reduce(0) { $0 + $1.seconds }
print(String(format: "total: %d states, %d transitions, %.2f s", states, transitions, seconds))
exit(reports.contains { $0.violation != nil } ? 1 : 0)
