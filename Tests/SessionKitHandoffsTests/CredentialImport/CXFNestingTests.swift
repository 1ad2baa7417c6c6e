import Foundation
import SessionKit
import SessionKitJOSE
import SessionKitTesting
import Testing

@testable import SessionKitHandoffs

/// Folders nest as deep as an exporter's folders do: the format sets no limit, so the decoder's
/// is far above what exporters write, and reaching it is a failure of its own, on any stack.
@Suite struct CXFNestingTests {
    let clock = TestClock()
    let exporter: SimulatedCredentialExporter

    init() {
        exporter = SimulatedCredentialExporter(clock: clock)
    }

    private func importing(_ bytes: [UInt8]) async throws(CredentialImportError) -> CXFDocument {
        let coordinator = CredentialImportCoordinator(
            importer: exporter, ledger: InMemoryImportTokenLedger(), intake: SimulatedCredentialExporter.intake,
            supportedVersions: [.v1], clock: clock, timeout: nil)
        return try await coordinator.handle(exporter.activity(for: exporter.offer(.serve(bytes))))
    }

    /// Folders `1...depth`, each linking the one item, each inside the one before.
    private func expectWholeChain(_ document: CXFDocument, depth: Int) {
        let chain = NestedFolders.chain(document)
        #expect(chain.map(\.title) == (1...depth).map { "Folder \($0)" })
        #expect(chain.map(\.id) == (1...depth).map(NestedFolders.id))
        #expect(chain.allSatisfy { $0.items == [CXFLinkedItem(item: "aXRlbQ")] })
        #expect(chain.last?.subCollections == [])
        #expect(document.allUndecodable.isEmpty && document.leniencies.isEmpty)
        #expect(document.accounts.map(\.items.count) == [1])
    }

    @Test(arguments: [14, 200])
    func aDeepFolderTreeImportsWhole(depth: Int) async throws {
        let bytes = NestedFolders.document(depth: depth)
        #expect(NestedFolders.nesting(bytes) == 5 + 2 * depth)
        expectWholeChain(try await importing(bytes), depth: depth)
    }

    @Test func aTreeExactlyAtTheLimitDecodesOnASecondaryThreadsStack() async throws {
        // 498 folders, the innermost empty: 4 + 2 × 498 = 1 000 levels.
        let depth = (CXFDocument.maximumNestingDepth - 4) / 2
        let bytes = NestedFolders.document(depth: depth, linkInInnermost: false)
        #expect(NestedFolders.nesting(bytes) == CXFDocument.maximumNestingDepth)
        // Decoding, walking and releasing the whole tree all happen on the small stack.
        let titles = await onSecondaryThreadStack { () -> Result<[String], CXFDecodingError> in
            Result { () throws(CXFDecodingError) in NestedFolders.chain(try CXFDocument.decode(bytes)).map(\.title) }
        }
        #expect(try titles.get() == (1...depth).map { "Folder \($0)" })
        let document = try await importing(bytes)
        #expect(NestedFolders.chain(document).count == depth)
        #expect(NestedFolders.chain(document).last?.items == [])
    }

    @Test func oneLevelPastTheLimitFailsAsTooDeepNotAsInvalidJSON() async throws {
        let depth = (CXFDocument.maximumNestingDepth - 4) / 2
        let bytes = NestedFolders.document(depth: depth, linkInInnermost: true)
        #expect(NestedFolders.nesting(bytes) == CXFDocument.maximumNestingDepth + 1)
        #expect(throws: CXFDecodingError.nestingTooDeep) { try CXFDocument.decode(bytes) }
        let error = await #expect(throws: CredentialImportError.self) { try await importing(bytes) }
        #expect(error == .invalidData(.nestingTooDeep, payload: CredentialExchangePayload(bytes)))
        #expect(error.map { "\($0)" } == "the credential data nests deeper than 1000 levels")
    }

    @Test func anExtensionNestedToTheLimitIsKeptAndOnePastItIsNot() throws {
        // The document, `accounts`, an account, its `extensions` and the extension: five levels.
        func document(nesting: Int) -> [UInt8] {
            let value = String(repeating: "[", count: nesting - 5) + String(repeating: "]", count: nesting - 5)
            let json =
                #"{"version":{"major":1,"minor":0},"exporterRpId":"e","exporterDisplayName":"E","timestamp":0,"#
                + #""accounts":[{"id":"YWNjb3VudA","username":"","email":"","items":[],"#
                + #""extensions":[{"name":"x-deep","value":\#(value)}]}]}"#
            return Array(json.utf8)
        }
        let limit = CXFDocument.maximumNestingDepth
        let kept = try CXFDocument.decode(document(nesting: limit)).accounts[0].extensions
        #expect(kept.map(\.name) == ["x-deep"])
        #expect(NestedFolders.nesting(Array(kept[0].json.value.utf8)) == limit - 4)
        #expect(throws: CXFDecodingError.nestingTooDeep) { try CXFDocument.decode(document(nesting: limit + 1)) }
    }

    @Test func aBrokenFolderDeepInsideIsKeptWithItsPathAndTheRestImports() throws {
        var text = String(decoding: NestedFolders.document(depth: 300), as: UTF8.self)
        // Folder 250 loses its title: the outermost folder holding it is kept whole, undecoded.
        text = text.replacingOccurrences(of: #""title":"Folder 250","#, with: "")
        let document = try CXFDocument.decode(Array(text.utf8))
        #expect(document.accounts[0].collections.isEmpty)
        #expect(document.accounts[0].items.count == 1)
        let kept = try #require(document.allUndecodable.first)
        #expect(kept.path == "accounts[0].collections[0]")
        let folder250 = "accounts[0].collections[0]" + String(repeating: ".subCollections[0]", count: 249)
        #expect(kept.problem == .missingField(folder250 + ".title"))
        #expect(NestedFolders.nesting(Array(kept.json.value.utf8)) == 2 * 300 + 1)
    }

    @Test func aHundredThousandLevelsFailAsTooDeepWithoutExhaustingTheStack() async throws {
        let bytes = Array(
            (#"{"version":{"major":1,"minor":0},"accounts":["# + String(repeating: "[", count: 100_000)).utf8)
        let onSmallStack = await onSecondaryThreadStack { () -> Result<CXFDocument, CXFDecodingError> in
            Result { () throws(CXFDecodingError) in try CXFDocument.decode(bytes) }
        }
        #expect(throws: CXFDecodingError.nestingTooDeep) { try onSmallStack.get() }
        let inATask = await Task.detached { () -> Result<CXFDocument, CXFDecodingError> in
            Result { () throws(CXFDecodingError) in try CXFDocument.decode(bytes) }
        }.value
        #expect(throws: CXFDecodingError.nestingTooDeep) { try inATask.get() }
        await #expect(throws: CredentialImportError.invalidData(.nestingTooDeep, payload: CredentialExchangePayload(bytes))) {
            try await importing(bytes)
        }
    }
}
