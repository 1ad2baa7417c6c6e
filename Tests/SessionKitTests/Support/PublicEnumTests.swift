import Foundation
import Testing

/// An app may switch exhaustively only over an enum whose set of cases is closed by design: every
/// other public enum with cases is `@nonexhaustive`, so a later version can add a case without
/// breaking an app's `switch` (it needs an `@unknown default:`).
@Suite("Public enums")
struct PublicEnumTests {
    /// The package root, found from this file's path: Tests/SessionKitTests/Support/<file>.
    static let packageRoot = URL(filePath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The library modules an app imports.
    static let libraries = [
        "SessionKitCore", "SessionKit", "SessionKitJOSE", "SessionKitHandoffs", "SessionKitSecretService", "SessionKitTesting",
    ]

    /// A public enum declaration with cases, where it is and what precedes it.
    struct Declaration: CustomStringConvertible {
        let name: String
        let file: String
        let nonexhaustive: Bool
        let documentedClosed: Bool

        var description: String { "\(name) (\(file))" }
    }

    /// Every public enum with at least one case in the library modules.
    static func declarations() throws -> [Declaration] {
        var found: [Declaration] = []
        let directories = libraries.map { packageRoot.appending(path: "Sources/\($0)") }
        for directory in directories where FileManager.default.fileExists(atPath: directory.path) {
            let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
            while let file = files?.nextObject() as? URL {
                guard file.pathExtension == "swift" else { continue }
                let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                for (index, line) in lines.enumerated() {
                    guard let name = enumName(line) else { continue }
                    let indent = line.prefix { $0 == " " }
                    let body = lines[(index + 1)...].prefix { !$0.hasPrefix(indent + "}") }
                    guard body.contains(where: { $0.hasPrefix(indent + "    case ") || $0.hasPrefix(indent + "    indirect case ") })
                    else { continue }
                    let preceding = lines[..<index].reversed().prefix { $0.hasPrefix(indent + "///") || $0.hasPrefix(indent + "@") }
                    found.append(
                        Declaration(
                            name: name, file: file.lastPathComponent,
                            nonexhaustive: preceding.contains { $0.trimmingCharacters(in: .whitespaces) == "@nonexhaustive" },
                            documentedClosed: preceding.contains { $0.contains("Closed by design") }))
                }
            }
        }
        return found
    }

    /// The enum's name when `line` declares a public enum.
    static func enumName(_ line: Substring) -> String? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        for prefix in ["public enum ", "public indirect enum "] where trimmed.hasPrefix(prefix) {
            return String(trimmed.dropFirst(prefix.count).prefix { $0.isLetter || $0.isNumber })
        }
        return nil
    }

    @Test func everyPublicEnumIsNonexhaustiveOrClosedByDesign() throws {
        let declarations = try Self.declarations()
        // The scan found the enums it is about (a broken scan would pass vacuously).
        #expect(declarations.count > 50)
        #expect(declarations.contains { $0.name == "SessionEvent" && $0.nonexhaustive })
        let neither = declarations.filter { !$0.nonexhaustive && !$0.documentedClosed }
        #expect(neither.isEmpty, "neither @nonexhaustive nor documented as closed by design: \(neither)")
        let both = declarations.filter { $0.nonexhaustive && $0.documentedClosed }
        #expect(both.isEmpty, "both @nonexhaustive and documented as closed: \(both)")
    }

    @Test func theClosedOnesAreTheOnesClosedByDesign() throws {
        let closed = Set(try Self.declarations().filter(\.documentedClosed).map(\.name))
        #expect(closed.isSuperset(of: ["SessionStage", "Category", "SessionModelError", "StoredSessionMismatch", "ClaimValue"]))
        #expect(!closed.contains("SessionEvent") && !closed.contains("ProviderError") && !closed.contains("CredentialStoreError"))
    }
}
