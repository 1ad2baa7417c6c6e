import Foundation

// Writes each ```swift block of one Markdown document as a Swift file of its own:
//
//   SnippetExtractor DOCUMENT DISPLAY-PATH OUTPUT-DIRECTORY PREFIX EXPECTED-COUNT
//
// A block's statements become the body of an async throwing function on the main actor (the
// surroundings they assume are declared in Tests/SnippetTests/Givens.swift); its imports stay at
// file scope. Words after `swift` on the fence line say more:
//   run           the body is a test that runs (the block must pass as written);
//   given:NAME    with run: the body runs in the scene `SnippetScene.NAME()` sets up (its `session`,
//                 and a `print` that records each line with the stage at that moment), and the
//                 scene's `finish()` then checks what the snippet did;
//   declarations  the block is file-scope code (types, extensions), not statements;
//   ios, macos    needs UIKit, or AppKit: elsewhere the block is parsed but not type-checked.
// A `#sourceLocation` points every diagnostic at the document's own line.

struct Snippet {
    var line: Int
    var attributes: Set<String>
    var body: [String]
}

enum ExtractionError: Error, CustomStringConvertible {
    case unterminated(line: Int)
    case unknownAttribute(String, line: Int)
    case countMismatch(expected: Int, found: Int)

    var description: String {
        switch self {
        case .unterminated(let line): "the ```swift block at line \(line) is never closed"
        case .unknownAttribute(let word, let line):
            "line \(line): unknown snippet attribute '\(word)' (run, given:NAME with run, declarations, ios, macos)"
        case .countMismatch(let expected, let found): "expected \(expected) snippets, found \(found)"
        }
    }
}

let knownAttributes: Set<String> = ["run", "declarations", "ios", "macos"]

func snippets(in text: String) throws(ExtractionError) -> [Snippet] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var found: [Snippet] = []
    var index = 0
    while index < lines.count {
        let line = lines[index]
        let indent = line.prefix { $0 == " " }.count
        let trimmed = line.dropFirst(indent)
        guard trimmed == "```swift" || trimmed.hasPrefix("```swift ") else {
            index += 1
            continue
        }
        let words = trimmed.dropFirst("```swift".count).split(separator: " ").map(String.init)
        for word in words where !knownAttributes.contains(word) && !(isGiven(word) && words.contains("run")) {
            throw .unknownAttribute(word, line: index + 1)
        }
        var body: [String] = []
        var closing = index + 1
        while closing < lines.count, lines[closing].drop(while: { $0 == " " }) != "```" {
            let bodyLine = lines[closing]
            let strip = min(indent, bodyLine.prefix { $0 == " " }.count)
            body.append(String(bodyLine.dropFirst(strip)))
            closing += 1
        }
        guard closing < lines.count else { throw .unterminated(line: index + 1) }
        found.append(Snippet(line: index + 1, attributes: Set(words), body: body))
        index = closing + 1
    }
    return found
}

/// Whether `word` is `given:NAME` with NAME an identifier.
func isGiven(_ word: String) -> Bool {
    guard word.hasPrefix("given:"), let first = word.dropFirst("given:".count).first, first.isLetter else { return false }
    return word.dropFirst("given:".count).allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
}

/// The scene a `run` snippet is given, if any.
func givenScene(of snippet: Snippet) -> String? {
    snippet.attributes.first(where: isGiven).map { String($0.dropFirst("given:".count)) }
}

func isImport(_ line: String) -> Bool {
    let words = line.split(separator: " ")
    return words.first == "import" || (words.first?.hasPrefix("@") == true && words.dropFirst().first == "import")
}

/// The names a snippet binds with a `let` or `var` at its top level (no indentation).
func topLevelConstants(in lines: [String]) -> [String] {
    lines.compactMap { line in
        guard line.hasPrefix("let ") || line.hasPrefix("var ") else { return nil }
        let name = line.dropFirst(4).prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        return name.isEmpty ? nil : String(name)
    }
}

func swiftStringLiteral(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
}

func source(of snippet: Snippet, number: Int, document: String, display: String, prefix: String) -> String {
    let location = swiftStringLiteral(document)
    let name = "\(prefix)_\(number)"
    var out = ["// Generated from \(display), the snippet at line \(snippet.line). Edit the document, not this file."]
    let platform: String? =
        if snippet.attributes.contains("ios") { "canImport(UIKit)" } else if snippet.attributes.contains("macos") {
            "canImport(AppKit) && !targetEnvironment(macCatalyst)"
        } else { nil }
    if let platform { out.append("#if \(platform)") }
    let imports = snippet.body.enumerated().filter { isImport($0.element) }
    for (offset, line) in imports {
        out.append("#sourceLocation(file: \(location), line: \(snippet.line + 1 + offset))")
        out.append(line)
    }
    if !imports.isEmpty { out.append("#sourceLocation()") }
    let bodyLines = snippet.body.map { isImport($0) ? "" : $0 }
    if snippet.attributes.contains("declarations") {
        out.append("#sourceLocation(file: \(location), line: \(snippet.line + 1))")
        out += bodyLines
        out.append("#sourceLocation()")
    } else {
        let scene = givenScene(of: snippet)
        if snippet.attributes.contains("run") {
            out.append("import Testing")
            let title = "\(display):\(snippet.line)" + (scene.map { " (given \($0))" } ?? "") + " runs as written"
            out.append("@Test(\(swiftStringLiteral(title))) @MainActor")
        } else {
            out.append("@MainActor")
        }
        out.append("func snippet_\(name)() async throws {")
        if let scene {
            // The scene's session and print shadow the givens' for the snippet's body.
            out.append("let scene = try await SnippetScene.\(scene)()")
            out.append("let session = scene.session")
            out.append("let print = scene.print")
            out.append("_ = (session, print)")
        }
        out.append("#sourceLocation(file: \(location), line: \(snippet.line + 1))")
        out += bodyLines
        out.append("#sourceLocation()")
        // A snippet often ends by making the value it is about; that is its point, not a mistake.
        out += topLevelConstants(in: bodyLines).map { "_ = \($0)" }
        if scene != nil { out.append("try await scene.finish()") }
        out.append("}")
    }
    if platform != nil { out.append("#endif") }
    return out.joined(separator: "\n") + "\n"
}

let arguments = CommandLine.arguments
guard arguments.count == 6, let expected = Int(arguments[5]) else {
    FileHandle.standardError.write(Data("usage: SnippetExtractor DOCUMENT DISPLAY-PATH OUTPUT-DIRECTORY PREFIX EXPECTED-COUNT\n".utf8))
    exit(2)
}
let (document, display, outputDirectory, prefix) = (arguments[1], arguments[2], arguments[3], arguments[4])
do {
    let text = try String(contentsOfFile: document, encoding: .utf8)
    let found = try snippets(in: text)
    guard found.count == expected else { throw ExtractionError.countMismatch(expected: expected, found: found.count) }
    for (offset, snippet) in found.enumerated() {
        let path = URL(fileURLWithPath: outputDirectory).appendingPathComponent("\(prefix)-\(offset + 1).swift")
        try source(of: snippet, number: offset + 1, document: document, display: display, prefix: prefix)
            .write(to: path, atomically: true, encoding: .utf8)
    }
} catch {
    FileHandle.standardError.write(Data("\(display): error: \(error)\n".utf8))
    exit(1)
}
