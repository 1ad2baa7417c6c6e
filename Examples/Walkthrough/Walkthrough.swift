import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting

/// `swift run walkthrough [--json] [SCENARIO…]`, `--list [--json]`, `--diagram [DIR]`, or against a
/// real provider: `swift run walkthrough --issuer URL --client-id ID --redirect-uri URI
/// [--loopback-port N | --paste] [--revocation-endpoint URL]`, or with a device code: `swift run
/// walkthrough --issuer URL --client-id ID --device [--device-authorization-endpoint URL]
/// [--revocation-endpoint URL]`. `--help` says it all.
@main
struct Walkthrough {
    static func main() async {
        let command: WalkthroughCommand
        do throws(WalkthroughCommand.UsageError) {
            command = try WalkthroughCommand.parse(Array(CommandLine.arguments.dropFirst()), scenarioNames: Scenario.all.map(\.name))
        } catch {
            FileHandle.standardError.write(Data("walkthrough: \(error.message)\nRun walkthrough --help for usage.\n".utf8))
            exit(WalkthroughCommand.usageStatus)
        }
        switch command {
        case .help:
            Narrator.write(WalkthroughCommand.help(scenarios: Scenario.all.map { ($0.name, $0.summary) }))
        case .list(let json):
            list(json: json)
        case .diagram(let directory):
            writeDiagrams(to: directory)
        case .realProvider(let options):
            exit(await RealProviderWalkthrough.run(options))
        case .scenarios(let names, let json):
            let selected = names.isEmpty ? Scenario.all : names.compactMap { name in Scenario.all.first { $0.name == name } }
            if await !run(selected, json: json) { exit(1) }
        }
    }

    static func list(json: Bool) {
        guard json else {
            for line in WalkthroughCommand.scenarioLines(Scenario.all.map { ($0.name, $0.summary) }) { Narrator.write(line) }
            return
        }
        struct Entry: Encodable {
            var name: String
            var summary: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        let entries = Scenario.all.map { Entry(name: $0.name, summary: $0.summary) }
        Narrator.write(String(decoding: (try? encoder.encode(entries)) ?? Data("[]".utf8), as: UTF8.self))
    }

    /// Runs the scenarios in order; false when any failed.
    static func run(_ selected: [Scenario], json: Bool) async -> Bool {
        var failed = false
        for scenario in selected {
            do {
                let clock = TestClock()
                let keys = scenario.signsWithDPoP ? DPoPKeyHolder(key: try P256PrivateKey.generate()) : nil
                let env = try SimulatedSessionEnvironment(provider: scenario.provider, clock: clock) { configuration in
                    scenario.configure(&configuration)
                    if let keys { configuration.requestMiddleware.append(DPoPMiddleware(keys: keys, now: { clock.wallClockNow() })) }
                }
                let narrator = Narrator(json: json, epoch: env.clock.wallClockNow())
                narrator.begin(scenario.name, summary: scenario.summary)
                // The narrator sees every event (of relaunched sessions too) before a wait on it
                // returns, so a scenario's notes never overtake the events they follow.
                await env.startRecording { narrator.event($0) }
                try await scenario.run(env, narrator)
            } catch {
                FileHandle.standardError.write(Data("walkthrough: scenario \(scenario.name) failed: \(error)\n".utf8))
                failed = true
            }
        }
        return !failed
    }

    static func writeDiagrams(to directory: String) {
        let base = URL(fileURLWithPath: directory)
        do {
            try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
            for file in SessionTransitionTable.diagramFiles() {
                try Data(file.contents.utf8).write(to: base.appendingPathComponent(file.name))
                print("wrote \(directory)/\(file.name)")
            }
        } catch {
            FileHandle.standardError.write(Data("walkthrough: cannot write the diagrams into \(directory): \(error)\n".utf8))
            exit(1)
        }
    }
}
