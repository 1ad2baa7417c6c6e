// libFuzzer entry points for SessionKitHandoffs' parsers. Built by Fuzz/run.sh against the
// SessionKitJOSE, SessionKit and SessionKitHandoffs modules compiled with the same sanitizers;
// the target is chosen by the HANDOFFS_FUZZ_TARGET environment variable.
//
// Besides "does not crash", each target checks a property that must hold for every input, and
// traps when it does not, so libFuzzer records the input as a crash.

import Foundation
import SessionKitHandoffs
import SessionKitJOSE

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The fuzz targets by name.
enum HandoffFuzzTarget: String, CaseIterable {
    case grant
    case intake
    case cxf

    static nonisolated(unsafe) var selected: HandoffFuzzTarget = .grant

    func run(_ bytes: [UInt8]) {
        switch self {
        case .grant: Self.fuzzGrant(bytes)
        case .intake: Self.fuzzIntake(bytes)
        case .cxf: Self.fuzzCXF(bytes)
        }
    }

    /// A property that must hold; a violation is reported to libFuzzer as a crash.
    static func require(_ condition: Bool, _ message: StaticString) {
        if !condition {
            printError("property violated: \(message)")
            abort()
        }
    }

    /// Access grants: what decodes has unique entry ids and non-empty references, survives being
    /// written again in either reference shape, matches by id exactly, and decides the outcome
    /// its state says.
    static func fuzzGrant(_ bytes: [UInt8]) {
        let completion = AccessRequestCompletion(
            completed: true,
            returnedItems: [
                AccessRequestReturnedItem(attachments: [AccessRequestAttachment(typeIdentifiers: [AccessGrant.typeIdentifier], data: bytes)]
                )
            ])
        let outcome = AccessRequestOutcome(completion)
        guard let grant = try? AccessGrant.decode(bytes) else {
            if case .failed(.unreadableGrant) = outcome { return }
            require(false, "an undecodable grant was not reported as unreadable")
            return
        }
        require(outcome.grant == grant, "the outcome does not carry the decoded grant")
        switch outcome {
        case .granted: require(grant.state == .resolved, "granted in another state")
        case .notGranted: require(grant.state != .resolved, "a resolved grant was not granted")
        default: require(false, "a decodable grant decided another outcome")
        }
        let ids = grant.resolved.compactMap(\.entryID)
        require(Set(ids).count == ids.count, "duplicate entry ids accepted")
        require(grant.resolved.allSatisfy { !$0.reference.secret.value.isEmpty && $0.entryID?.isEmpty != true }, "empty value accepted")
        for plain in [false, true] {
            let again = try? AccessGrant.decode(write(grant, plainReferences: plain))
            require(again == grant, "a written grant does not decode to the same grant")
        }
        let match = grant.match(requestedEntryIDs: ids)
        require(match.references.count == ids.count, "requested ids were not all matched")
        require(match.extraLogins.count == grant.resolved.count - ids.count, "extra logins miscounted")
        require(match.missingEntryIDs.isEmpty && match.unrequested.isEmpty, "a granted id was reported missing or unrequested")
        for entry in grant.resolved {
            if let id = entry.entryID { require(match[id] == entry.reference, "an id matched another reference") }
        }
    }

    static func write(_ grant: AccessGrant, plainReferences: Bool) -> [UInt8] {
        let entries = grant.resolved.map { entry -> String in
            let reference = JSONWriter.quoted(entry.reference.secret.value)
            let id = entry.entryID.map { "\"entryId\":\(JSONWriter.quoted($0))," } ?? ""
            return "{\(id)\"reference\":\(plainReferences ? reference : "{\"reference\":\(reference)}")}"
        }
        return Array(
            ("{\"path\":\(JSONWriter.quoted(grant.path)),\"state\":\(JSONWriter.quoted(grant.state.rawValue)),"
                + "\"resolved\":[\(entries.joined(separator: ","))]}").utf8)
    }

    static let importIntake = CredentialImportIntake(activityType: "credential-exchange", tokenKey: "token")

    /// Activity intake: bytes become an activity type and `userInfo` entries (fields split at
    /// 0x00; a value's first byte picks its kind: `u` a UUID parsed from the rest, `s` a string,
    /// anything else another kind). An accepted token is exactly the one under the token key.
    /// Format version strings parse to values that print back to themselves.
    static func fuzzIntake(_ bytes: [UInt8]) {
        let fields = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        var userInfo: [String: CredentialImportActivity.Value] = [:]
        var index = 1
        while index + 1 < fields.count {
            let value = fields[index + 1]
            switch value.first {
            case "u":
                userInfo[fields[index]] = UUID(uuidString: String(value.dropFirst())).map(CredentialImportActivity.Value.uuid) ?? .other
            case "s": userInfo[fields[index]] = .string(String(value.dropFirst()))
            default: userInfo[fields[index]] = .other
            }
            index += 2
        }
        let activity = CredentialImportActivity(activityType: fields.first ?? "", userInfo: userInfo)
        if let token = try? importIntake.token(from: activity) {
            require(activity.activityType == importIntake.activityType, "accepted another activity type")
            switch userInfo[importIntake.tokenKey] {
            case .uuid(let uuid)?: require(uuid == token.uuid, "accepted another UUID")
            case .string(let text)?:
                require(text.utf8.count == 36 && text.uppercased() == token.uuid.uuidString.uppercased(), "accepted a non-canonical token")
            default: require(false, "accepted a token of another kind")
            }
        }
        for field in fields {
            if let version = CXFVersion(field) {
                require(CXFVersion(version.description) == version, "a version does not print back to itself")
            }
            if let token = CredentialImportToken(uuidString: field) {
                require(CredentialImportToken(uuidString: token.uuid.uuidString) == token, "a token does not round-trip")
            }
        }
    }

    static let versions = [CXFVersion.v1, CXFVersion(major: 1, minor: 1)]

    /// CXF data: only a major version the app declares decodes, and then nothing is lost:
    /// decoding is deterministic, every credential is counted once (typed, opaque or
    /// undecodable), undecodable entries keep valid JSON and a problem inside their own path,
    /// opaque credentials keep their type, identifiers and keys are canonical base64url even
    /// when a lenient spelling was read, and every leniency names a member.
    static func fuzzCXF(_ bytes: [UInt8]) {
        let document: CXFDocument
        do {
            document = try CXFDocument.decode(bytes, supportedVersions: versions)
        } catch {
            if case .unsupportedVersion(let found, _) = error {
                require(!versions.contains { $0.major == found.major }, "refused a supported major version")
            }
            return
        }
        require(versions.contains { $0.major == document.version.major }, "accepted an unsupported major version")
        require((try? CXFDocument.decode(bytes, supportedVersions: versions)) == document, "decoding is not deterministic")
        let credentials = document.accounts.flatMap(\.items).flatMap(\.credentials)
        let summary = document.summary
        var undecodableCredentials = 0
        for case .undecodable in credentials { undecodableCredentials += 1 }
        require(
            summary.credentials.values.reduce(0, +) + summary.opaque + undecodableCredentials == credentials.count,
            "the summary miscounts credentials")
        require(summary.undecodable == document.allUndecodable.count, "the summary miscounts undecodable entries")
        require(summary.items == document.accounts.reduce(0) { $0 + $1.items.count }, "the summary miscounts items")
        for entry in document.allUndecodable {
            require(
                (try? JSONParser.parse(Array(entry.json.value.utf8), maximumDepth: CXFDocument.maximumNestingDepth)) != nil,
                "an undecodable entry lost its JSON")
            require(!entry.path.isEmpty, "an undecodable entry has no path")
        }
        require(document.leniencies.allSatisfy { !$0.path.isEmpty }, "a leniency names no member")
        let canonical = { (text: String) in (try? Base64URL.decode(text)).map(Base64URL.encode) == text }
        for credential in credentials {
            switch credential {
            case .opaque(let opaque):
                guard let object = try? JSONParser.parseObject(Array(opaque.json.value.utf8), maximumDepth: CXFDocument.maximumNestingDepth)
                else {
                    return require(false, "opaque JSON does not parse")
                }
                require(object["type"] == .string(opaque.type), "opaque JSON lost its type")
            case .passkey(let passkey):
                require(
                    [passkey.credentialID, passkey.userHandle, passkey.key.value].allSatisfy(canonical), "non-canonical base64url kept")
            case .sshKey(let key):
                require(canonical(key.privateKey.value), "non-canonical base64url kept")
            case .totp(let totp):
                require((1...255).contains(totp.period) && (1...255).contains(totp.digits), "TOTP parameters out of range")
                require(!totp.secret.value.contains(" "), "a Base32 secret kept its spaces")
            default:
                break
            }
        }
        for item in document.accounts.flatMap(\.items) {
            require((try? Base64URL.decode(item.id)).map { !$0.isEmpty && $0.count <= 64 } == true, "an invalid item id accepted")
        }
    }
}

/// Writes a line to standard error without touching C's global `stderr`.
func printError(_ text: String) {
    let line = text + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    let name = getenv("HANDOFFS_FUZZ_TARGET").map { String(cString: $0) } ?? "grant"
    guard let target = HandoffFuzzTarget(rawValue: name) else {
        printError("unknown HANDOFFS_FUZZ_TARGET \(name); one of: \(HandoffFuzzTarget.allCases.map(\.rawValue))")
        exit(2)
    }
    HandoffFuzzTarget.selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    HandoffFuzzTarget.selected.run(bytes)
    return 0
}
