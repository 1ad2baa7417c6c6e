import BenchmarkSupport
import Foundation

/// Turns a run into measures and into the readable table.
enum Report {
    /// The overhead bound from the transport issue: a refresh through the library may take at
    /// most this many times a bare POST of the same request.
    static let ratioLimit = 1.2

    static func header(_ benchmark: TransportBenchmark, issuer: String) -> String {
        """
        SessionKit transport benchmark — release build, refresh-token grant against \(issuer).
        \(benchmark.warmUpRounds) warm-up + \(benchmark.rounds) measured rounds; each round sends one refresh on every path,
        in an order that rotates from round to round. Each path has its own refresh-token chain and URLSession.
        ratio = median(path) / median(bare); paired = median over rounds of (path / bare in the same round).
        The file store lives under \(FileManager.default.temporaryDirectory.path) (set TMPDIR to measure another disk).
        """
    }

    static func measures(_ result: TransportBenchmark.Result) -> [Measure] {
        var measures: [Measure] = []
        let paths = TransportBenchmark.Path.allCases.filter { result.milliseconds[$0] != nil }
        for path in paths {
            measures.append(Measure("refresh.\(path.rawValue).median", median(result, path), unit: "ms"))
        }
        for path in paths where path != .bare {
            let ratio = median(result, path) / median(result, .bare)
            measures.append(Measure("refresh.\(path.rawValue).ratio", ratio, unit: "x", atMost: ratioLimit))
        }
        for path in paths where path != .bare {
            measures.append(Measure("refresh.\(path.rawValue).outside_http", result.outsideHTTP[path]?.median ?? .nan, unit: "ms"))
            for phase in phaseOrder where result.phases[path]?[phase] != nil {
                measures.append(
                    Measure("refresh.\(path.rawValue).in.\(phase?.rawValue ?? "rest")", result.phases[path]![phase]!.median, unit: "ms"))
            }
        }
        measures.append(Measure("refresh.wall_time", result.wallTime.milliseconds / 1e3, unit: "s"))
        return measures
    }

    static func pathsTable(_ result: TransportBenchmark.Result) -> String {
        let widths = [34, 10, 8, 8, 8, 8, 7, 7]
        var lines = [row(["path", "median ms", "p25", "p75", "min", "max", "ratio", "paired"], widths)]
        let bare = median(result, .bare)
        for path in TransportBenchmark.Path.allCases where result.milliseconds[path] != nil {
            let samples = result.milliseconds[path] ?? Samples()
            let paired = result.pairedRatios[path] ?? Samples()
            lines.append(
                row(
                    [
                        path.label, fixed(samples.median, 2), fixed(samples.lowerQuartile, 2), fixed(samples.upperQuartile, 2),
                        fixed(samples.minimum, 2), fixed(samples.maximum, 2), fixed(samples.median / bare, 3), fixed(paired.median, 3),
                    ], widths))
        }
        return lines.joined(separator: "\n")
    }

    /// Where each library path spent its time: the median per request of each timed phase, and
    /// of what none of them covers.
    static func phasesTable(_ result: TransportBenchmark.Result) -> String {
        let widths = [34, 8, 8, 11, 10, 10, 8, 8, 8]
        var lines = [
            "where the time goes (median ms per request, summed over a phase's calls; ×n = calls per request; outside = total − http;",
            "rest = outside every timed phase: state machine, id_token verification, encoding, task and actor hops)",
            row(["path", "total", "http", "outside", "lease take", "lease give", "load", "save", "rest"], widths),
        ]
        for path in TransportBenchmark.Path.allCases where result.phases[path] != nil {
            let phases = result.phases[path]!
            let counts = result.phaseCounts[path] ?? [:]
            var cells = [path.label, fixed(median(result, path), 2)]
            for phase in phaseOrder {
                if phase == .leaseAcquire { cells.append(fixed(result.outsideHTTP[path]?.median ?? .nan, 2)) }
                guard let samples = phases[phase] else {
                    cells.append("—")
                    continue
                }
                let count = phase.flatMap { counts[$0] } ?? 1
                cells.append(fixed(samples.median, 2) + (count > 1 ? " ×\(count)" : ""))
            }
            lines.append(row(cells, widths))
        }
        return lines.joined(separator: "\n")
    }

    private static let phaseOrder: [PhaseClock.Phase?] = [.http, .leaseAcquire, .leaseRelease, .load, .save, nil]

    static func measuresTable(_ measures: [Measure]) -> String {
        let widths = [50, 10, 5, 8, 4]
        var lines = [row(["measure", "value", "unit", "target", "pass"], widths)]
        for measure in measures {
            lines.append(
                row(
                    [measure.name, Measure.format(measure.value), measure.unit, measure.target ?? "—", measure.pass ? "yes" : "NO"], widths)
            )
        }
        return lines.joined(separator: "\n")
    }

    private static func median(_ result: TransportBenchmark.Result, _ path: TransportBenchmark.Path) -> Double {
        result.milliseconds[path]?.median ?? .nan
    }

    private static func fixed(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }

    private static func row(_ cells: [String], _ widths: [Int]) -> String {
        zip(cells, widths).map { cell, width in
            cell.count >= width ? cell : cell + String(repeating: " ", count: width - cell.count)
        }.joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}
