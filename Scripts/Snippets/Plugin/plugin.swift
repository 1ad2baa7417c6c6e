import Foundation
import PackagePlugin

/// Compiles every Swift snippet of the documentation into the target it is applied to.
///
/// The README and every article of the package's DocC catalogs (`Sources/*/*.docc`) are read at
/// build time; each ```` ```swift ```` block becomes one generated file, so a snippet that stops
/// compiling fails the build with a diagnostic that points into the document.
@main
struct DocumentationSnippets: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let root = context.package.directoryURL
        let extractor = try context.tool(named: "SnippetExtractor").url
        return try documents(under: root).map { document in
            let name = outputPrefix(for: document, root: root)
            let count = try snippetCount(in: document)
            let outputs = (0..<count).map { context.pluginWorkDirectoryURL.appending(path: "\(name)-\($0 + 1).swift") }
            return .buildCommand(
                displayName: "Extracting the Swift snippets of \(relativePath(of: document, root: root))",
                executable: extractor,
                arguments: [
                    document.path, relativePath(of: document, root: root), context.pluginWorkDirectoryURL.path, name, String(count),
                ],
                inputFiles: [document], outputFiles: outputs)
        }
    }

    /// The README and every Markdown file inside a documentation catalog.
    private func documents(under root: URL) throws -> [URL] {
        var found = [root.appending(path: "README.md")]
        let sources = root.appending(path: "Sources")
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let moduleURL = sources.appending(path: module)
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: moduleURL.path)) ?? []
            for catalog in entries.sorted() where catalog.hasSuffix(".docc") {
                let catalogURL = moduleURL.appending(path: catalog)
                let files = FileManager.default.enumerator(atPath: catalogURL.path)?.compactMap { $0 as? String } ?? []
                found += files.filter { $0.hasSuffix(".md") }.sorted().map { catalogURL.appending(path: $0) }
            }
        }
        return found
    }

    /// How many ```` ```swift ```` fences the document opens; the extractor checks it finds as many.
    private func snippetCount(in document: URL) throws -> Int {
        let text = try String(contentsOf: document, encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: false).count { line in
            let trimmed = line.drop { $0 == " " }
            return trimmed == "```swift" || trimmed.hasPrefix("```swift ")
        }
    }

    private func relativePath(of document: URL, root: URL) -> String {
        String(document.path.dropFirst(root.path.count).drop { $0 == "/" })
    }

    private func outputPrefix(for document: URL, root: URL) -> String {
        String(relativePath(of: document, root: root).map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}
