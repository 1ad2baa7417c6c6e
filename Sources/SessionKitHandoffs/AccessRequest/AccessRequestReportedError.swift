/// An error the share sheet reported, as a domain and number, and what it means if known.
public struct AccessRequestReportedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The error's domain.
    public var domain: String
    /// The error's numeric code within its domain.
    public var number: Int
    /// The protocol error it stands for, when recognized (see ``AccessRequestErrorTable``).
    public var code: AccessRequestErrorCode?

    /// Creates a reported error.
    public init(domain: String, number: Int, code: AccessRequestErrorCode? = nil) {
        self.domain = domain
        self.number = number
        self.code = code
    }

    /// Domain, number and meaning: an error carries no request data.
    public var description: String {
        "\(domain) \(number)" + (code.map { " (\($0))" } ?? "")
    }
}
