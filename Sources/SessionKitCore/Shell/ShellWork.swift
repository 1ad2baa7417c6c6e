/// The part of a ``MachineShell`` that does not depend on its machine: the one task owner and the
/// change feed.
package final class ShellWork: Sendable {
    /// Owns every task the coordinator starts.
    package let owner = TaskOwner()
    /// Notified after every step and whenever a child starts or ends.
    package let changes = SessionChangeFeed()

    package init() {
        owner.changes.add { [weak changes] in changes?.notify() }
        owner.changes.arm()
    }
}
