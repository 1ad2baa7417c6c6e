import Foundation
import SessionKit
import SessionKitTesting

/// `swift run walkthrough [--list] [--json] [--diagram DIR] [NAME…]`, or against a real provider:
/// `swift run walkthrough --issuer URL --client-id ID --redirect-uri URI [--revocation-endpoint URL] [--paste]`,
/// or with a device code: `swift run walkthrough --issuer URL --client-id ID --device
/// [--device-authorization-endpoint URL] [--revocation-endpoint URL]`.
@main
struct Walkthrough {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let json = arguments.contains("--json")
        arguments.removeAll { $0 == "--json" }
        if arguments.contains("--list") {
            for scenario in Scenario.all {
                print("\(scenario.name.padding(toLength: 20, withPad: " ", startingAt: 0)) \(scenario.summary)")
            }
            return
        }
        if let index = arguments.firstIndex(of: "--diagram") {
            let directory = index + 1 < arguments.count ? arguments[index + 1] : "Diagrams"
            writeDiagrams(to: directory)
            return
        }
        if arguments.contains("--issuer") {
            exit(await runAgainstRealProvider(arguments, json: json))
        }
        if arguments.contains(where: { $0.hasPrefix("-") }) {
            FileHandle.standardError.write(Data("usage: walkthrough [--list] [--json] [--diagram DIR] [SCENARIO…]\n".utf8))
            exit(2)
        }
        let selected = arguments.isEmpty ? Scenario.all : arguments.compactMap { name in Scenario.all.first { $0.name == name } }
        if selected.count != max(arguments.count, selected.count) || (!arguments.isEmpty && selected.count != arguments.count) {
            FileHandle.standardError.write(Data("unknown scenario; see walkthrough --list\n".utf8))
            exit(2)
        }
        var failed = false
        for scenario in selected {
            do {
                let env = try SimulatedSessionEnvironment(configure: scenario.configure)
                let narrator = Narrator(json: json, epoch: env.clock.wallClockNow())
                narrator.begin(scenario.name, summary: scenario.summary)
                await env.startRecording()
                env.session.addObserver { narrator.event($0) }
                try await scenario.run(env, narrator)
            } catch {
                FileHandle.standardError.write(Data("scenario \(scenario.name) failed: \(error)\n".utf8))
                failed = true
            }
        }
        if failed { exit(1) }
    }

    static func runAgainstRealProvider(_ arguments: [String], json: Bool) async -> Int32 {
        var arguments = arguments
        let paste = arguments.contains("--paste")
        let device = arguments.contains("--device")
        arguments.removeAll { $0 == "--paste" || $0 == "--device" }
        var values: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let name = arguments[index]
            let named = ["--issuer", "--client-id", "--redirect-uri", "--revocation-endpoint", "--device-authorization-endpoint"]
            guard named.contains(name), index + 1 < arguments.count else {
                FileHandle.standardError.write(Data("unexpected argument \(name)\n".utf8))
                return 2
            }
            values[name] = arguments[index + 1]
            index += 2
        }
        let redirect = values["--redirect-uri"].flatMap(URL.init(string:))
        guard let issuer = values["--issuer"], let clientID = values["--client-id"], device || redirect != nil else {
            FileHandle.standardError.write(
                Data(
                    ("usage: walkthrough --issuer URL --client-id ID (--redirect-uri URI [--paste] | --device"
                        + " [--device-authorization-endpoint URL]) [--revocation-endpoint URL]\n").utf8))
            return 2
        }
        return await RealProviderWalkthrough.run(
            .init(
                issuer: issuer, clientID: clientID, redirectURI: redirect,
                revocationEndpoint: values["--revocation-endpoint"].flatMap(URL.init(string:)), json: json, paste: paste, device: device,
                deviceAuthorizationEndpoint: values["--device-authorization-endpoint"].flatMap(URL.init(string:))))
    }

    static func writeDiagrams(to directory: String) {
        let base = URL(fileURLWithPath: directory)
        do {
            try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
            try Data(SessionTransitionTable.mermaid().utf8).write(to: base.appendingPathComponent("stages.mmd"))
            try Data(SessionTransitionTable.dot().utf8).write(to: base.appendingPathComponent("stages.dot"))
            print("wrote \(directory)/stages.mmd and \(directory)/stages.dot")
        } catch {
            FileHandle.standardError.write(Data("cannot write diagrams: \(error)\n".utf8))
            exit(2)
        }
    }
}
