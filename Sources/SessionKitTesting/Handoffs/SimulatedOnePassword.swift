public import Foundation
import SessionKit
import SessionKitCore
public import SessionKitHandoffs
import SessionKitJOSE

/// An `AccessRequestPresenter` that plays 1Password from a script instead of showing the share
/// sheet.
///
/// Each request is first read the way 1Password reads it: a request that is not strict JSON with
/// a numeric `version` and a non-empty string `accessRequestReference` is answered with
/// `requestDecodeFailure` ("the request is malformed, or 1Password couldn't read its access
/// request reference"), another version with `unsupportedVersion`. Then the next scripted
/// ``SimulatedOnePasswordAnswer`` decides: grant chosen entries (with or without `entryId`, in
/// either reference shape), a grant in another state, decline, fail with each error (`missingRequest`,
/// "none of the shared items contained an access request", only when scripted), close without a
/// choice, never answer, or answer after a delay of simulated time.
///
/// Errors are reported the way 1Password's extension reports them: as its Swift enum
/// `OnePasswordAccessRequestError` bridged to an `NSError` (domain ``errorDomain``, code the
/// case's position), read back with ``errorTable`` through
/// `AccessRequestReportedError(bridging:table:)`, exactly as the Apple adapter reads the sheet's
/// error. ``log`` records every request without its reference.
///
/// ```swift
/// let onePassword = SimulatedOnePassword(clock: clock)
/// onePassword.enqueue(.grant([.init(entryID: "github", reference: "ref-1"), .extra("ref-2")]))
/// let handoff = AccessRequestHandoff(presenter: onePassword, clock: clock)
/// ```
public final class SimulatedOnePassword: AccessRequestPresenter {
    /// The domain of the errors the simulator reports: the module-qualified name of 1Password's
    /// error enum, as Swift's bridging writes it.
    public static let errorDomain = "OnePassword." + AccessRequestErrorTable.bridgedTypeName

    /// The code each protocol error is reported with in ``errorDomain``: its case's position.
    public static let errorNumbers: [AccessRequestErrorCode: Int] = Dictionary(
        uniqueKeysWithValues: AccessRequestErrorTable.bridgedCaseOrder.enumerated().map { ($0.element, $0.offset) })

    /// How the simulator reads its errors back: the library's default table.
    public static let errorTable = AccessRequestErrorTable.onePassword

    /// The error 1Password's extension fails with for `code`, as Swift bridges it to Foundation.
    public static func bridgedError(_ code: AccessRequestErrorCode) -> NSError {
        NSError(domain: errorDomain, code: errorNumbers[code] ?? -1)
    }

    private struct State {
        var answers: [SimulatedOnePasswordAnswer]
        var log: [SimulatedOnePasswordLogEntry] = []
        var previousReference: [UInt8]?
        var grantCount = 0
    }

    private let clock: TestClock
    private let state: Locked<State>
    private let suspensions = SuspensionPool()

    /// Creates a simulator whose delays run on `clock`.
    public init(clock: TestClock, answers: [SimulatedOnePasswordAnswer] = []) {
        self.clock = clock
        self.state = Locked(State(answers: answers))
    }

    /// Appends answers to the script.
    public func enqueue(_ answers: SimulatedOnePasswordAnswer...) {
        state.withLock { $0.answers.append(contentsOf: answers) }
    }

    /// Every request shown so far, in order.
    public var log: [SimulatedOnePasswordLogEntry] {
        state.withLock { $0.log }
    }

    /// How many scripted answers are left.
    public var remainingAnswerCount: Int {
        state.withLock { $0.answers.count }
    }

    /// How many presentations are waiting forever right now.
    public var suspendedPresentationCount: Int {
        suspensions.count
    }

    /// Returns once at least `count` presentations are waiting forever
    /// (``SimulatedOnePasswordAnswer/neverAnswer``), or when the calling task is cancelled.
    public func waitForSuspendedPresentations(count: Int = 1) async {
        await suspensions.waitForSuspended(count: count)
    }

    /// Reads the request as 1Password would and plays the next answer.
    ///
    /// With no answer left it throws `AccessRequestPresentationError.unavailable(_:)`, so a test
    /// that forgot to script one fails instead of hanging.
    public func present(_ request: AccessRequest) async throws(AccessRequestPresentationError) -> AccessRequestCompletion {
        let bytes = request.jsonBytes()
        let (version, reference, problem) = Self.read(bytes)
        let next = state.withLock { state -> SimulatedOnePasswordAnswer? in
            let digest = reference.map { SHA256Digest.hash(Array($0.utf8)) }
            let same = state.log.isEmpty ? nil : (digest != nil && digest == state.previousReference)
            state.previousReference = digest
            let answer: SimulatedOnePasswordAnswer? =
                if let problem { .fail(problem) } else { state.answers.isEmpty ? nil : state.answers.removeFirst() }
            state.log.append(
                SimulatedOnePasswordLogEntry(
                    typeIdentifier: AccessRequest.typeIdentifier, version: version, sameReferenceAsPrevious: same,
                    answer: answer?.summary ?? "no answer scripted"))
            return answer
        }
        guard let next else { throw .unavailable("no scripted answer left") }
        return try await play(next)
    }

    private func play(_ answer: SimulatedOnePasswordAnswer) async throws(AccessRequestPresentationError) -> AccessRequestCompletion {
        switch answer {
        case .grant(let entries, let shape):
            let path = state.withLock { state -> String in
                state.grantCount += 1
                return "simulated/requests/\(state.grantCount)"
            }
            return Self.completion(grant: Self.grantJSON(path: path, state: .resolved, entries: entries, shape: shape))
        case .grantInState(let grantState):
            return Self.completion(grant: Self.grantJSON(path: "simulated/requests/other", state: grantState, entries: [], shape: .object))
        case .grantBytes(let bytes):
            return Self.completion(grant: bytes)
        case .decline:
            return Self.failure(.declined)
        case .fail(let code):
            return Self.failure(code)
        case .failUnrecognized(let domain, let number):
            return AccessRequestCompletion(completed: false, error: AccessRequestReportedError(domain: domain, number: number))
        case .failBridged(let domain, let code):
            return AccessRequestCompletion(
                completed: false, error: AccessRequestReportedError(bridging: NSError(domain: domain, code: code), table: Self.errorTable))
        case .closeWithoutChoosing:
            return AccessRequestCompletion(completed: false)
        case .completeWithoutGrant:
            return AccessRequestCompletion(completed: true)
        case .neverAnswer:
            await suspensions.suspendUntilCancelled()
            throw .cancelled
        case .after(let delay, let later):
            do {
                try await clock.sleep(for: delay)
            } catch {
                throw .cancelled
            }
            return try await play(later)
        }
    }

    // MARK: Reading and writing the wire

    /// The request's version and reference as 1Password reads them, or the error it answers: a
    /// request it cannot read, or whose reference it cannot read, is `requestDecodeFailure`.
    private static func read(_ bytes: [UInt8]) -> (version: Int?, reference: String?, problem: AccessRequestErrorCode?) {
        guard let object = try? JSONParser.parseObject(bytes) else { return (nil, nil, .requestDecodeFailure) }
        guard case .number(let number)? = object["version"], number == number.rounded(), abs(number) < 1e9 else {
            return (nil, nil, .requestDecodeFailure)
        }
        let version = Int(number)
        guard version == AccessRequest.protocolVersion else { return (version, nil, .unsupportedVersion) }
        guard case .string(let reference)? = object["accessRequestReference"], !reference.isEmpty else {
            return (version, nil, .requestDecodeFailure)
        }
        return (version, reference, nil)
    }

    private static func failure(_ code: AccessRequestErrorCode) -> AccessRequestCompletion {
        AccessRequestCompletion(completed: false, error: AccessRequestReportedError(bridging: bridgedError(code), table: errorTable))
    }

    private static func completion(grant bytes: [UInt8]) -> AccessRequestCompletion {
        let attachment = AccessRequestAttachment(typeIdentifiers: [AccessGrant.typeIdentifier, "public.json"], data: bytes)
        return AccessRequestCompletion(completed: true, returnedItems: [AccessRequestReturnedItem(attachments: [attachment])])
    }

    /// A grant as 1Password writes it, with one member the protocol does not define (readers
    /// must ignore it).
    static func grantJSON(
        path: String, state: AccessGrant.State, entries: [SimulatedOnePasswordEntry], shape: SimulatedOnePasswordReferenceShape
    ) -> [UInt8] {
        let resolved = entries.map { entry -> String in
            let reference = JSONWriter.quoted(entry.reference)
            let value = shape == .object ? "{\"reference\":\(reference)}" : reference
            let id = entry.entryID.map { "\"entryId\":\(JSONWriter.quoted($0))," } ?? ""
            return "{\(id)\"reference\":\(value)}"
        }
        let json =
            "{\"path\":\(JSONWriter.quoted(path)),\"state\":\(JSONWriter.quoted(state.rawValue)),"
            + "\"resolved\":[\(resolved.joined(separator: ","))],\"simulator\":{\"name\":\"SessionKitTesting\"}}"
        return Array(json.utf8)
    }
}
