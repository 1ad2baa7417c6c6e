/// Which `(domain, code)` pairs of a share-sheet error mean which protocol error.
///
/// The share sheet reports an extension's failure as an error with a domain and a numeric code;
/// this table is the one place that says what they mean, so the decision is made (and tested) in
/// cross-platform code.
///
/// 1Password's extension fails with `OnePasswordAccessRequestError`, a Swift enum without
/// payloads. Swift bridges such an error to an `NSError` whose domain is the enum's
/// module-qualified name and whose code is the case's position in the declaration:
/// `requestDecodeFailure` 0, `missingRequest` 1, `unsupportedVersion` 2, `declined` 3,
/// `internalError` 4. ``onePassword`` (the default everywhere) recognizes that form, in any module;
/// pairs added with ``adding(domain:codes:)`` take precedence, for an extension that reports its
/// errors differently. A pair nothing recognizes is an unrecognized failure, never retried
/// automatically.
public struct AccessRequestErrorTable: Sendable, Hashable {
    /// The enum's name as it appears in a bridged error's domain.
    public static let bridgedTypeName = "OnePasswordAccessRequestError"

    /// The protocol errors in the enum's declaration order, so a case's position is its code.
    public static let bridgedCaseOrder: [AccessRequestErrorCode] = [
        .requestDecodeFailure, .missingRequest, .unsupportedVersion, .declined, .internalError,
    ]

    /// A table that recognizes `OnePasswordAccessRequestError` as Swift bridges it.
    public static let onePassword = AccessRequestErrorTable(recognizesBridgedErrors: true)

    private var codes: [String: [Int: AccessRequestErrorCode]]
    /// Whether errors bridged from `OnePasswordAccessRequestError` are recognized.
    public var recognizesBridgedErrors: Bool

    /// An empty table: every error is unrecognized (``onePassword`` is the usual starting point).
    public init() {
        self.init(recognizesBridgedErrors: false)
    }

    /// A table with no explicit pairs; `recognizesBridgedErrors` decides whether the bridged
    /// `OnePasswordAccessRequestError` form is known.
    public init(recognizesBridgedErrors: Bool) {
        codes = [:]
        self.recognizesBridgedErrors = recognizesBridgedErrors
    }

    /// A table that maps `codes` in `domain` (and nothing else).
    public init(domain: String, codes: [Int: AccessRequestErrorCode]) {
        self.codes = [domain: codes]
        recognizesBridgedErrors = false
    }

    /// This table with `codes` in `domain` added (replacing earlier entries for the same pairs).
    public func adding(domain: String, codes: [Int: AccessRequestErrorCode]) -> AccessRequestErrorTable {
        var table = self
        table.codes[domain, default: [:]].merge(codes) { _, new in new }
        return table
    }

    /// The protocol error `(domain, code)` stands for, if the table knows it: an explicit pair
    /// first, then the bridged form.
    public func recognize(domain: String, code: Int) -> AccessRequestErrorCode? {
        if let explicit = codes[domain]?[code] { return explicit }
        guard recognizesBridgedErrors, Self.isBridgedDomain(domain), Self.bridgedCaseOrder.indices.contains(code) else { return nil }
        return Self.bridgedCaseOrder[code]
    }

    /// The reported error with its meaning filled in from this table.
    public func recognize(_ error: AccessRequestReportedError) -> AccessRequestReportedError {
        var recognized = error
        recognized.code = error.code ?? recognize(domain: error.domain, code: error.number)
        return recognized
    }

    /// `OnePasswordAccessRequestError` itself or `<Module>.OnePasswordAccessRequestError`.
    static func isBridgedDomain(_ domain: String) -> Bool {
        domain == bridgedTypeName || domain.hasSuffix("." + bridgedTypeName)
    }
}
