/// A pure machine a ``MachineShell`` runs: `(state, input) -> (state, [action])`, with the inputs
/// every shell feeds it alike.
package protocol ShellMachine: SendableMetatype {
    /// What the shell performs, in order, after each step.
    associatedtype Action: Sendable
    /// What the shell tells its subscribers and observers.
    associatedtype Event: Sendable

    /// The event `action` publishes, when it is one; the shell publishes it itself, so every
    /// subscriber hears exactly the events produced after it subscribed.
    static func event(in action: Action) -> Event?

    /// The caller with `id` was cancelled: answers that caller, and ends only the work that no
    /// other caller waits for. A caller already answered is a harmless race.
    mutating func callerCancelled(_ id: UInt64) -> [Action]

    /// The shell shuts down: answers every waiting caller, cancels every piece of work it ordered,
    /// and answers every later caller with the shut-down error.
    mutating func shutDown() -> [Action]
}
