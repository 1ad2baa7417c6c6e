/// Which `(domain, code)` pairs of a share-sheet error mean which protocol error.
///
/// The share sheet reports an extension's failure as an error with a domain and a numeric code;
/// this table is the one place that says what they mean, so the decision is made (and tested) in
/// cross-platform code. A pair the table does not know is reported as an unrecognized failure.
public struct AccessRequestErrorTable: Sendable, Hashable {
    private var codes: [String: [Int: AccessRequestErrorCode]]

    /// An empty table: every error is unrecognized.
    public init() {
        codes = [:]
    }

    /// A table that maps `codes` in `domain`.
    public init(domain: String, codes: [Int: AccessRequestErrorCode]) {
        self.codes = [domain: codes]
    }

    /// This table with `codes` in `domain` added (replacing earlier entries for the same pairs).
    public func adding(domain: String, codes: [Int: AccessRequestErrorCode]) -> AccessRequestErrorTable {
        var table = self
        table.codes[domain, default: [:]].merge(codes) { _, new in new }
        return table
    }

    /// The protocol error `(domain, code)` stands for, if the table knows it.
    public func recognize(domain: String, code: Int) -> AccessRequestErrorCode? {
        codes[domain]?[code]
    }

    /// The reported error with its meaning filled in from this table.
    public func recognize(_ error: AccessRequestReportedError) -> AccessRequestReportedError {
        var recognized = error
        recognized.code = error.code ?? recognize(domain: error.domain, code: error.number)
        return recognized
    }
}
