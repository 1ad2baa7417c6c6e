// A child process for the session's crash and cross-process tests. It prints one line per
// completed step on standard output (never a token, code or secret), so the parent can act at
// exact points — kill it, or count its results — without sleeping:
//
//   refresh-loop   --store DIR --issuer URL --client-id ID --redirect-uri URI
//                  [--revocation-endpoint URL] [--profile onepass] [--trace] --count N
//       restore, then N forced refreshes: "ok <i>" or "error <code>" each ("error invalid_grant"
//       for a rejected refresh token), then one JSON summary line.
//   lifecycle-loop --store DIR --issuer URL --client-id ID --redirect-uri URI --profile onepass
//                  [--user NAME] [--refreshes K] [--seed S] [--trace]
//       forever: sign in (the authorization URL is fetched with an X-Test-User header, whose 302
//       carries the callback), K refreshes, then sign-out or account deletion, alternately.
//
// Both take --tag T, sent as an X-Crash-Tag header with every request (so a test server can ignore
// a killed process's last requests). With --trace, every HTTP request ("io send <endpoint>", "io recv <endpoint> <status>") and
// every store write ("io save …", "io saved …") is a line too: the I/O moments a kill can hit.
import Foundation
import SessionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let status: Int32
do {
    let options = try ToolOptions(Array(CommandLine.arguments.dropFirst()))
    switch options.mode {
    case "refresh-loop": status = try await RefreshLoop.run(options)
    case "lifecycle-loop": status = try await LifecycleLoop.run(options)
    default: throw ToolOptions.Failure.usage("unknown mode \(options.mode)")
    }
} catch let error as ToolOptions.Failure {
    ToolOutput.emit("usage: \(error)")
    status = 64
} catch {
    ToolOutput.emit("error setup \(error)")
    status = 2
}
exit(status)
