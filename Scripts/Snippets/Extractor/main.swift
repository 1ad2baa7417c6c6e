import Foundation

// Writes each ```swift block of one Markdown document as a Swift file of its own:
//
//   SnippetExtractor DOCUMENT DISPLAY-PATH OUTPUT-DIRECTORY PREFIX EXPECTED-COUNT
//
// A block's statements become the body of an async throwing function on the main actor (the
// surroundings they assume are declared in Tests/SnippetTests/Givens.swift); its imports stay at
// file scope. Words after `swift` on the fence line say more:
//   run           the body is a test that runs (the block must pass as written);
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
        case .unknownAttribute(let word, let line): "line \(line): unknown snippet attribute '\(word)' (run, declarations, ios, macos)"
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
        for word in words where !knownAttributes.contains(word) {
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
        if snippet.attributes.contains("run") {
            out.append("import Testing")
            out.append("@Test(\(swiftStringLiteral("\(display):\(snippet.line) runs as written"))) @MainActor")
        } else {
            out.append("@MainActor")
        }
        out.append("func snippet_\(name)() async throws {")
        out.append("#sourceLocation(file: \(location), line: \(snippet.line + 1))")
        out += bodyLines
        out.append("#sourceLocation()")
        // A snippet often ends by making the value it is about; that is its point, not a mistake.
        out += topLevelConstants(in: bodyLines).map { "_ = \($0)" }
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
