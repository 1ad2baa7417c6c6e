/// A coordinator that runs on a ``MachineShell``: what the test kit reads of its work, written once.
package protocol ShellHost: Sendable {
    /// The shell's task owner and change feed.
    var shellWork: ShellWork { get }
}

extension ShellHost {
    /// How many of the coordinator's tasks are running (a presentation, an import, a ledger
    /// write, a timeout); zero once it is idle or shut down.
    package var liveTaskCount: Int { shellWork.owner.liveChildren }

    /// How many cancellations sent to the coordinator's work have not reached it yet; a test
    /// moves the clock once this is zero, so no cancelled timer's sleep is still on it.
    package var cancellationsInFlight: Int { shellWork.owner.cancellationsInFlight }

    /// Notified after every step of the machine and whenever a task starts or ends, for the test
    /// kit's waits (`ChangeSignal`).
    package var changes: SessionChangeFeed { shellWork.changes }
}
