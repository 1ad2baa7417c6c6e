import SessionKitHandoffs
import SessionKitJOSE

/// CXF documents whose folders nest inside one another, and how deep a document's JSON nests.
enum NestedFolders {
    /// One account with one item and a chain of `depth` folders, each inside the one before and
    /// each linking the item, except the innermost when `linkInInnermost` is false.
    ///
    /// The document, `accounts` and the account are three levels; each folder adds two (its
    /// object and its `subCollections` list, or its `items` list for the innermost), and a link
    /// one more. So `depth` folders nest `4 + 2 × depth` levels, or one more with the link.
    static func document(depth: Int, linkInInnermost: Bool = true) -> [UInt8] {
        var json =
            #"{"version":{"major":1,"minor":0},"exporterRpId":"exporter.example","exporterDisplayName":"Exporter","#
            + #""timestamp":1705228800,"accounts":[{"id":"YWNjb3VudA","username":"jane","email":"jane@example.com","#
            + #""items":[{"id":"aXRlbQ","title":"Item","credentials":[]}],"collections":["#
        for level in 1...depth {
            let link = level < depth || linkInInnermost ? #"{"item":"aXRlbQ"}"# : ""
            json += #"{"id":"\#(id(level))","title":"Folder \#(level)","items":[\#(link)]"#
            json += level < depth ? #","subCollections":["# : ""
        }
        json += String(repeating: "}]", count: depth) + "}]}"
        return Array(json.utf8)
    }

    /// The id of the folder at `level`.
    static func id(_ level: Int) -> String {
        Base64URL.encode(Array("folder-\(level)".utf8))
    }

    /// The deepest nesting of objects and lists in `bytes`, which holds no brackets in strings.
    static func nesting(_ bytes: [UInt8]) -> Int {
        var depth = 0
        var deepest = 0
        for byte in bytes {
            if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                depth += 1
                deepest = max(deepest, depth)
            } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                depth -= 1
            }
        }
        return deepest
    }

    /// The folder chain of the document's first account, outermost first, read without recursion.
    static func chain(_ document: CXFDocument) -> [CXFCollection] {
        var chain: [CXFCollection] = []
        var next = document.accounts.first?.collections.first
        while let folder = next {
            chain.append(folder)
            next = folder.subCollections.first
        }
        return chain
    }
}
