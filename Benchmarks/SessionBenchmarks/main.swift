import Foundation

// swift run -c release SessionBenchmarks [--json] [--rounds N] [--only fast-path|concurrent|month|cold-launch|idtoken|dpop|dpop-refresh]
let usage = "usage: SessionBenchmarks [--json] [--rounds N] [--only fast-path|concurrent|month|cold-launch|idtoken|dpop|dpop-refresh]…\n"
var arguments = Array(CommandLine.arguments.dropFirst())
let json = arguments.contains("--json")
arguments.removeAll { $0 == "--json" }
var rounds = 5
if let index = arguments.firstIndex(of: "--rounds") {
    guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value > 0 else {
        FileHandle.standardError.write(Data(usage.utf8))
        exit(2)
    }
    rounds = value
    arguments.removeSubrange(index...(index + 1))
}
var groups: Set<String> = []
while let index = arguments.firstIndex(of: "--only") {
    guard index + 1 < arguments.count, BenchmarkSuite.allGroups.contains(arguments[index + 1]) else {
        FileHandle.standardError.write(Data(usage.utf8))
        exit(2)
    }
    groups.insert(arguments[index + 1])
    arguments.removeSubrange(index...(index + 1))
}
guard arguments.isEmpty else {
    FileHandle.standardError.write(Data(usage.utf8))
    exit(2)
}

var suite = BenchmarkSuite(rounds: rounds)
if !groups.isEmpty { suite.groups = groups }
if !json { print(Report.header(rounds: rounds, suite: suite)) }
do {
    let result = try await suite.run { message in FileHandle.standardError.write(Data("\(message)\n".utf8)) }
    if json {
        for measure in result.measures { print(measure.jsonLine) }
    } else {
        print("")
        if suite.groups.contains("fast-path") {
            print(Report.fastPathTable(result.fastPath))
        }
        if suite.groups.contains("month") {
            print(Report.spread("month, wall time        ", result.month.milliseconds, scale: 1, unit: "ms"))
            print(Report.spread("month, cpu time         ", result.month.cpuMilliseconds, scale: 1, unit: "ms"))
            print(Report.spread("month, floor wall time  ", result.month.floorMilliseconds, scale: 1, unit: "ms"))
            print(Report.spread("month, floor cpu time   ", result.month.floorCPUMilliseconds, scale: 1, unit: "ms"))
            print(Report.spread("month / floor, per round", result.month.ratios, scale: 1, unit: "x"))
        }
        if suite.groups.contains("concurrent") {
            print("")
            print(Report.callersTable(result.callers))
        }
        if suite.groups.contains("idtoken") {
            print("")
            print(Report.idTokenTable(result.idToken))
        }
        print("")
        print(Report.measuresTable(result.measures))
        print("")
        print(Report.targetsTable(result.measures))
    }
} catch {
    FileHandle.standardError.write(Data("benchmark failed: \(error)\n".utf8))
    exit(1)
}
