/// Why a presenter could not deliver a completion.
@nonexhaustive
public enum AccessRequestPresentationError: Error, Sendable, Hashable {
    /// The calling task was cancelled and the sheet dismissed.
    case cancelled
    /// The sheet could not be shown (no window, nothing to present from); the message names no
    /// request data.
    case unavailable(String)
}

/// The seam that shows an access request in the share sheet and reports how the sheet closed.
///
/// The Apple adapter presents `UIActivityViewController`; the test kit's `SimulatedOnePassword`
/// answers from a script. A presenter must dismiss the sheet when the calling task is cancelled.
public protocol AccessRequestPresenter: Sendable {
    /// Shows `request` and returns what the sheet reported when it closed.
    func present(_ request: AccessRequest) async throws(AccessRequestPresentationError) -> AccessRequestCompletion
}
