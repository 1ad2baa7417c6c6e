import Foundation

// A refresh round trip through the library against a bare URLSession POST of the same request,
// against the local django-oauth-toolkit provider:
//   Scripts/providers/providers.sh start && eval "$(Scripts/providers/providers.sh env)"
//   swift run -c release TransportBenchmarks [--json] [--rounds N] [--warm-up N] [--only PATH]…
// --only limits the run to some library paths (the bare baseline always runs), e.g. for profiling.
let paths = TransportBenchmark.Path.allCases.filter { $0 != .bare }.map(\.rawValue).joined(separator: "|")
let usage = "usage: TransportBenchmarks [--json] [--rounds N] [--warm-up N] [--only \(paths)]…\n"

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data(message.utf8))
    exit(code)
}

var arguments = Array(CommandLine.arguments.dropFirst())
let json = arguments.contains("--json")
arguments.removeAll { $0 == "--json" }
var benchmark = TransportBenchmark()
for (option, minimum) in [("--rounds", 1), ("--warm-up", 0)] {
    guard let index = arguments.firstIndex(of: option) else { continue }
    guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value >= minimum else { fail(usage, code: 2) }
    if option == "--rounds" { benchmark.rounds = value } else { benchmark.warmUpRounds = value }
    arguments.removeSubrange(index...(index + 1))
}
while let index = arguments.firstIndex(of: "--only") {
    guard index + 1 < arguments.count, let path = TransportBenchmark.Path(rawValue: arguments[index + 1]) else { fail(usage, code: 2) }
    if benchmark.paths == TransportBenchmark.Path.allCases { benchmark.paths = [.bare] }
    if !benchmark.paths.contains(path) { benchmark.paths.append(path) }
    arguments.removeSubrange(index...(index + 1))
}
guard arguments.isEmpty else { fail(usage, code: 2) }

let provider: LocalProvider
do {
    provider = try LocalProvider.fromEnvironment()
} catch {
    fail("TransportBenchmarks: \(error)\n", code: 2)
}

if !json { print(Report.header(benchmark, issuer: provider.issuer)) }
do {
    let result = try await benchmark.run(provider) { message in FileHandle.standardError.write(Data("\(message)\n".utf8)) }
    let measures = Report.measures(result)
    if json {
        for measure in measures { print(measure.jsonLine) }
    } else {
        print("")
        print(Report.pathsTable(result))
        print("")
        print(Report.phasesTable(result))
        print("")
        print(Report.measuresTable(measures))
    }
} catch {
    fail("benchmark failed: \(error)\n", code: 1)
}
