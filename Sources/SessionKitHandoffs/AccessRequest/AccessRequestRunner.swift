/// Performs an ``AccessRequestHandoff``'s actions: the presentation and the timeout run as
/// children of the handoff's task owner, each under the cancel token the machine keeps for it.
struct AccessRequestRunner<C: Clock>: ShellRunner where C.Duration == Duration {
    typealias Waiter = CheckedContinuation<Result<AccessRequestOutcome, AccessRequestError>, Never>
    typealias Machine = AccessRequestMachine<Waiter>

    let presenter: any AccessRequestPresenter
    let clock: C

    func perform(_ action: Machine.Action, in shell: MachineShell<Self>) {
        switch action {
        case .present(let request, let attempt, let cancel):
            let presenter = self.presenter
            shell.owner.spawn(cancelledBy: cancel) { [weak shell] in
                do throws(AccessRequestPresentationError) {
                    let completion = try await presenter.present(request)
                    shell?.modify { $0.presenterCompleted(completion, attempt: attempt) }
                } catch {
                    shell?.modify { $0.presenterFailed(error, attempt: attempt) }
                }
            }
        case .cancelPresentation(_, let cancel), .cancelTimer(_, let cancel):
            // A presentation or timer that reports before this reaches it is dropped as stale.
            cancel.cancel()
        case .startTimer(let attempt, let duration, let cancel):
            shell.startTimer(after: duration, on: clock, cancelledBy: cancel) { [weak shell] in
                shell?.modify { $0.timerFired(attempt: attempt) }
            }
        case .resume(let waiter, let result):
            waiter.resume(returning: result)
        case .emit:
            // Published by the shell, in order with the subscriptions.
            break
        }
    }
}
