import SessionKit

/// `lifecycle-loop`: forever sign in (when not signed in), refresh `--refreshes` times, then sign
/// out or delete the account, alternately; a line before and after every step. Any failure
/// prints `error <step> <code>` and exits with status 2.
enum LifecycleLoop {
    enum Ending {
        case signOut
        case deleteAccount
    }

    static func run(_ options: ToolOptions) async throws -> Int32 {
        let refreshes = try options.integer("refreshes", default: 3)
        var ending: Ending = try options.integer("seed", default: 0) % 2 == 0 ? .signOut : .deleteAccount
        let session = try await ToolSession.make(options).session
        do {
            let stage = try await session.restoreAndSettle()
            ToolOutput.emit("restored \(stage)")
        } catch {
            ToolOutput.emit("error restore \(error.toolCode)")
            return 2
        }
        while true {
            do {
                if session.stage != .active {
                    ToolOutput.emit("begin sign-in")
                    try await session.signIn()
                    ToolOutput.emit("signed-in")
                }
                for index in 0..<refreshes {
                    ToolOutput.emit("begin refresh")
                    try await session.refresh()
                    ToolOutput.emit("ok \(index + 1)")
                }
                switch ending {
                case .signOut:
                    ToolOutput.emit("begin sign-out")
                    try await session.signOut()
                    ToolOutput.emit("signed-out")
                    ending = .deleteAccount
                case .deleteAccount:
                    ToolOutput.emit("begin delete")
                    try await session.deleteAccount()
                    ToolOutput.emit("deleted")
                    ending = .signOut
                }
            } catch {
                ToolOutput.emit("error step \(error.toolCode)")
                return 2
            }
        }
    }
}
