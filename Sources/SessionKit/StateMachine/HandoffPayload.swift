import Foundation

/// What a handoff waits for: the callback to an authorization request, or the answer to a
/// device sign-in (RFC 8628) while the person approves on another device.
enum HandoffPayload: Sendable {
    /// An authorization request shown by the presenter; the answer is a callback URL.
    case authorization(SignInAttempt)
    /// A device sign-in; the answer comes from polling the token endpoint.
    case device(DeviceSignInPhase)
}

/// Where a device sign-in stands inside the handoff stage.
enum DeviceSignInPhase: Sendable {
    /// The device code is being requested; the handoff timeout runs.
    case requestingCode
    /// The person has the code; the poll timer runs.
    case waitingToPoll(DevicePolling)
    /// A poll is in flight.
    case polling(DevicePolling)
}

/// A device sign-in that has its code: the authorization, the planner deciding every poll, and
/// when the code arrived on the session's wall clock (the planner counts `expires_in` from it).
struct DevicePolling: Sendable {
    var authorization: DeviceAuthorization
    var planner: DevicePollPlanner
    var receivedAt: Date
}
