import Foundation
import Testing

@testable import SessionKit

extension StateMachineTests {
    /// The table itself: complete, well formed, and the committed diagram is generated from it.
    @Suite struct SessionTransitionTableTests {
        /// The package root, found from this file's path: Tests/SessionKitTests/StateMachine/<file>.
        static let packageRoot = URL(filePath: #filePath)
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent()
            .deletingLastPathComponent()

        @Test func declaresEveryPairExactlyOnce() {
            let rules = SessionTransitionTable.rules
            #expect(rules.count == SessionStage.allCases.count * SessionInput.allCases.count)
            let pairs = Set(rules.map { "\($0.stage)/\($0.event)" })
            #expect(pairs.count == rules.count)
        }

        @Test func everyOutcomeSaysSomething() {
            for rule in SessionTransitionTable.rules {
                switch rule.outcome {
                case .moves(let targets):
                    #expect(!targets.isEmpty, "\(rule.event) in \(rule.stage)")
                    #expect(Set(targets).count == targets.count, "\(rule.event) in \(rule.stage)")
                case .misuse(let misuse):
                    #expect(!misuse.rawValue.isEmpty, "\(rule.event) in \(rule.stage)")
                case .ignored(let why):
                    #expect(!why.isEmpty, "\(rule.event) in \(rule.stage)")
                }
            }
        }

        @Test func everyStageIsReachableFromSignedOut() {
            var reached: Set<SessionStage> = [.signedOut]
            var frontier: [SessionStage] = [.signedOut]
            while let stage = frontier.popLast() {
                for rule in SessionTransitionTable.rules where rule.stage == stage {
                    guard case .moves(let targets) = rule.outcome else { continue }
                    for target in targets where reached.insert(target).inserted {
                        frontier.append(target)
                    }
                }
            }
            #expect(reached == Set(SessionStage.allCases))
        }

        /// What to run when a committed diagram is out of date.
        static let regenerate =
            "run Scripts/diagrams.sh and commit Diagrams/ and Sources/SessionKit/SessionKit.docc/Resources/"

        static func committed(_ path: String) -> String? {
            try? String(contentsOf: packageRoot.appending(path: path), encoding: .utf8)
        }

        /// Whether a line of a diagram's source draws an arrow from one stage to another: forward,
        /// or written from its head with `dir=back`; `signedOut` as a target may be its end box.
        static func isArrow(_ line: Substring, from: SessionStage, to: SessionStage) -> Bool {
            let heads = to == .signedOut ? ["signedOut", "signedOut_end"] : [to.rawValue]
            return heads.contains { head in
                line.hasPrefix("    \(from.rawValue) -> \(head) [") && !line.contains("dir=back")
                    || line.hasPrefix("    \(head) -> \(from.rawValue) [dir=back")
            }
        }

        @Test func committedDiagramsMatchTheTable() {
            for file in SessionTransitionTable.diagramFiles() {
                let committed = Self.committed("Diagrams/\(file.name)")
                #expect(committed != nil, "Diagrams/\(file.name) is missing: \(Self.regenerate)")
                let upToDate = committed == file.contents
                #expect(upToDate, "Diagrams/\(file.name) is out of date: \(Self.regenerate)")
            }
        }

        /// Each SVG, in Diagrams/ and in the DocC catalog, is the rendering of today's source: it
        /// carries the source's digest, and the catalog's copy is a real file equal to Diagrams/'.
        @Test func renderedDiagramsMatchTheirSources() throws {
            let resources = "Sources/SessionKit/SessionKit.docc/Resources"
            for file in SessionTransitionTable.diagramFiles() where file.name.hasSuffix(".dot") {
                let svgName = file.name.replacingOccurrences(of: ".dot", with: ".svg")
                let stamp = SessionTransitionTable.diagramStamp(of: file.contents)
                let svg = Self.committed("Diagrams/\(svgName)")
                let rendered = svg?.contains(stamp) == true
                #expect(rendered, "Diagrams/\(svgName) was not rendered from today's table: \(Self.regenerate)")
                let copyPath = Self.packageRoot.appending(path: "\(resources)/\(svgName)").path
                let attributes = try? FileManager.default.attributesOfItem(atPath: copyPath)
                #expect(
                    attributes?[.type] as? FileAttributeType == .typeRegular,
                    "\(resources)/\(svgName) must be a real file (DocC copies a link as it is): \(Self.regenerate)")
                let sameAsDiagrams = Self.committed("\(resources)/\(svgName)") == svg
                #expect(sameAsDiagrams, "\(resources)/\(svgName) differs from Diagrams/\(svgName): \(Self.regenerate)")
            }
        }

        /// Every move of the table is drawn in exactly one concern's diagram, as an arrow or, for a
        /// move that stays, in the stage's "stays on" list (besides the guest diagram, which also
        /// draws the moves a guest session makes as any session would); every move of a guest
        /// session is drawn in the guest diagram; no diagram draws a self-loop.
        @Test func everyMoveIsDrawnInItsConcernsDiagram() {
            let diagrams = Dictionary(uniqueKeysWithValues: SessionConcern.allCases.map { ($0, SessionTransitionTable.dot(for: $0)) })
            func drawnIn(_ stage: SessionStage, _ event: SessionInput, _ target: SessionStage) -> [SessionConcern] {
                SessionConcern.allCases.filter { concern in
                    diagrams[concern]!.split(separator: "\n").contains { line in
                        target == stage
                            ? line.hasPrefix("    \(stage.rawValue) [") && line.contains(event.rawValue)
                            : Self.isArrow(line, from: stage, to: target) && line.contains(event.rawValue)
                    }
                }
            }
            for rule in SessionTransitionTable.rules {
                guard case .moves(let targets) = rule.outcome else { continue }
                let concern = SessionConcern.of(rule.event, in: rule.stage)
                for target in targets {
                    let drawn = drawnIn(rule.stage, rule.event, target)
                    let outsideGuest = concern == .guest ? drawn : drawn.filter { $0 != .guest }
                    #expect(outsideGuest == [concern], "\(rule.stage) --\(rule.event)--> \(target)")
                }
            }
            for rule in SessionTransitionTable.guestRules {
                guard case .moves(let targets) = rule.outcome else { continue }
                for target in targets {
                    #expect(
                        drawnIn(rule.stage, rule.event, target).contains(.guest),
                        "\(rule.guest): \(rule.stage) --\(rule.event)--> \(target)")
                }
            }
            for (concern, dot) in diagrams {
                #expect(dot.contains(" -> "), "the \(concern) diagram has no arrow")
                for stage in SessionStage.allCases {
                    #expect(!dot.contains("    \(stage.rawValue) -> \(stage.rawValue) "), "a self-loop in the \(concern) diagram")
                }
            }
        }

        /// The overview shows all seven stages and an arrow for every pair of stages the table
        /// connects.
        @Test func theOverviewShowsEveryStageAndEveryMoveBetweenStages() {
            let overview = SessionTransitionTable.overviewDot()
            for stage in SessionStage.allCases {
                #expect(overview.contains("    \(stage.rawValue) [label="), "\(stage)")
            }
            for rule in SessionTransitionTable.rules {
                guard case .moves(let targets) = rule.outcome else { continue }
                for target in targets where target != rule.stage {
                    #expect(
                        overview.split(separator: "\n").contains { Self.isArrow($0, from: rule.stage, to: target) },
                        "\(rule.stage) -> \(target)")
                }
            }
        }

        /// A diagram's digest changes with its source, so an SVG rendered before a change is caught.
        @Test func theDigestFollowsTheSource() {
            let source = SessionTransitionTable.dot(for: .refresh)
            let changed = source.replacingOccurrences(of: "refreshVerified", with: "refreshVerifiedTwice")
            #expect(SessionTransitionTable.diagramDigest(of: source) != SessionTransitionTable.diagramDigest(of: changed))
            #expect(source.contains(SessionTransitionTable.diagramStamp(of: source)))
        }
    }
}
