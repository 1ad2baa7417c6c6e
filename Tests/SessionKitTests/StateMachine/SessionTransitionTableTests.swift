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

        @Test func committedDiagramMatchesTheTable() throws {
            let url = Self.packageRoot.appending(path: "Diagrams/stages.mmd")
            let committed = try #require(
                try? String(contentsOf: url, encoding: .utf8),
                "Diagrams/stages.mmd is missing: generate it from SessionTransitionTable.mermaid() and commit it")
            #expect(committed == SessionTransitionTable.mermaid())
        }
    }
}
