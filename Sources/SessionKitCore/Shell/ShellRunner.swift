/// Performs the actions of one kind of shell machine: starts the work they order as children of
/// the shell's task owner, which report back through the shell as inputs, ends the work they
/// cancel, and answers the waiters they resume.
package protocol ShellRunner: Sendable {
    associatedtype Machine: ShellMachine

    /// Performs `action` (never an event: the shell publishes those). Work started here holds the
    /// shell weakly, so a coordinator nobody holds is freed and its work abandoned.
    func perform(_ action: Machine.Action, in shell: MachineShell<Self>)
}
