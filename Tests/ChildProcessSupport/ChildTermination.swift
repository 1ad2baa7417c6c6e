import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How a child process ended: with an exit status, or by a signal.
///
/// `Process.terminationStatus` alone cannot tell `exit(11)` from a segmentation fault; a test
/// that kills its child with SIGKILL must tell that kill from a crash of the child itself.
public enum ChildTermination: Equatable, Sendable, CustomStringConvertible {
    case exited(Int32)
    case signalled(Int32)

    /// How `process`, which has exited, ended.
    public init(_ process: Process) {
        switch process.terminationReason {
        case .exit: self = .exited(process.terminationStatus)
        case .uncaughtSignal: self = .signalled(process.terminationStatus)
        @unknown default: self = .exited(process.terminationStatus)
        }
    }

    /// The kill a test sends on purpose.
    public static let killed = ChildTermination.signalled(SIGKILL)

    /// A signal no test sends: the child crashed (a bad access, a trap of the Swift runtime).
    public var isCrash: Bool {
        if case .signalled(let signal) = self { return signal != SIGKILL }
        return false
    }

    /// The number a shell would report: the exit status, or the signal's number.
    public var status: Int32 {
        switch self {
        case .exited(let status), .signalled(let status): status
        }
    }

    public var description: String {
        switch self {
        case .exited(let status): "exit status \(status)"
        case .signalled(let signal): "signal \(signal) (\(Self.name(of: signal)))"
        }
    }

    private static func name(of signal: Int32) -> String {
        switch signal {
        case SIGKILL: "SIGKILL"
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGABRT: "SIGABRT"
        case SIGFPE: "SIGFPE"
        case SIGTERM: "SIGTERM"
        case SIGPIPE: "SIGPIPE"
        default: "signal \(signal)"
        }
    }
}
