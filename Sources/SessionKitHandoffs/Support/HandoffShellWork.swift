import SessionKitCore

/// The part of a ``HandoffShell`` that does not depend on its machine: the one task owner and the
/// change feed.
package final class HandoffShellWork: Sendable {
    /// Owns every task the coordinator starts.
    let owner = TaskOwner()
    /// Notified after every step and whenever a child starts or ends.
    let changes = SessionChangeFeed()

    init() {
        owner.changes.add { [weak changes] in changes?.notify() }
        owner.changes.arm()
    }
}
