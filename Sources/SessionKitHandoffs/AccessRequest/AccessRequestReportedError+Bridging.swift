import Foundation

extension AccessRequestReportedError {
    /// The error as the share sheet hands it over, read through Foundation's bridging (its
    /// `NSError` domain and code), with its meaning taken from `table`.
    ///
    /// The Apple adapter calls this with the sheet's error; it runs on every platform, so tests
    /// build the same `NSError`s 1Password's Swift enum bridges to.
    public init(bridging error: any Error, table: AccessRequestErrorTable = .onePassword) {
        let bridged = error as NSError
        self = table.recognize(AccessRequestReportedError(domain: bridged.domain, number: bridged.code))
    }
}
