import SessionKit

/// `refresh-loop`: restore, then `--count` forced refreshes, one line each, and a summary.
///
/// A refresh that sent no refresh-token request adopted a result another process stored.
enum RefreshLoop {
    static func run(_ options: ToolOptions) async throws -> Int32 {
        let count = try options.integer("count")
        let tool = try await ToolSession.make(options)
        let session = tool.session
        var summary = Summary(refreshes: count)
        do {
            let stage = try await session.restoreAndSettle()
            ToolOutput.emit("restored \(stage)")
        } catch {
            ToolOutput.emit("error \(error.toolCode)")
            summary.restoreFailed = true
        }
        summary.restoreRequests = tool.transport.count("token:refresh_token")
        if !summary.restoreFailed {
            for index in 1..<(count + 1) {
                let before = tool.transport.count("token:refresh_token")
                do {
                    try await session.refresh()
                    summary.ok += 1
                    if tool.transport.count("token:refresh_token") == before { summary.adopted += 1 }
                    ToolOutput.emit("ok \(index)")
                } catch {
                    summary.errors += 1
                    if error == .refreshTokenRejected { summary.invalidGrant += 1 }
                    ToolOutput.emit("error \(error.toolCode)")
                }
            }
        }
        summary.tokenRequests = tool.transport.count("token:refresh_token")
        ToolOutput.emit(summary.json)
        return summary.restoreFailed ? 2 : 0
    }

    struct Summary {
        var refreshes: Int
        var ok = 0
        var errors = 0
        var invalidGrant = 0
        /// Refresh-token requests sent, restore included.
        var tokenRequests = 0
        var restoreRequests = 0
        var adopted = 0
        var restoreFailed = false

        var json: String {
            #"{"refreshes":\#(refreshes),"ok":\#(ok),"errors":\#(errors),"invalid_grant":\#(invalidGrant),"#
                + #""token_requests":\#(tokenRequests),"restore_requests":\#(restoreRequests),"adopted":\#(adopted),"#
                + #""restored":\#(!restoreFailed)}"#
        }
    }
}
