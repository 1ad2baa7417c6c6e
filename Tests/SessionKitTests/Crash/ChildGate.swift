import Foundation
import SessionKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Decides which child process the provider listens to, and can kill that child from inside the
/// provider, at the exact moment an answer was decided but not yet sent.
///
/// A killed child may leave a request on its way to the server. The gate admits only requests
/// tagged for the child now running; closing it refuses every later one and waits for the
/// admitted ones to finish, so the provider's state is final before a checker looks at it.
final class ChildGate: Sendable {
    private struct State {
        var openTag: String?
        var pid: Int32?
        var pidWaiters: [CheckedContinuation<Int32?, Never>] = []
        var inFlight = 0
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        var armedKind: String?
        var serverKills = 0
    }

    private let state = Locked(State())

    /// Admits requests tagged `tag` from now on, for a child whose pid ``register(pid:)`` tells.
    func open(tag: String) {
        state.withLock { state in
            state.openTag = tag
            state.pid = nil
        }
    }

    /// The pid of the child the open tag belongs to.
    func register(pid: Int32) {
        let waiters = state.withLock { state -> [CheckedContinuation<Int32?, Never>] in
            state.pid = pid
            defer { state.pidWaiters = [] }
            return state.pidWaiters
        }
        for waiter in waiters { waiter.resume(returning: pid) }
    }

    /// Whether a request with this tag may reach the provider; an admitted one must `leave()`.
    func admit(tag: String?) -> Bool {
        state.withLock { state in
            guard let tag, tag == state.openTag else { return false }
            state.inFlight += 1
            return true
        }
    }

    /// An admitted request was answered.
    func leave() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.inFlight -= 1
            guard state.inFlight == 0 else { return [] }
            defer { state.drainWaiters = [] }
            return state.drainWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Refuses every later request, disarms, and returns once no admitted request is in flight.
    func closeAndDrain() async {
        let pidWaiters = state.withLock { state -> [CheckedContinuation<Int32?, Never>] in
            state.openTag = nil
            state.armedKind = nil
            defer { state.pidWaiters = [] }
            return state.pidWaiters
        }
        for waiter in pidWaiters { waiter.resume(returning: nil) }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let drained = state.withLock { state -> Bool in
                if state.inFlight == 0 { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if drained { continuation.resume() }
        }
    }

    /// Kills the child right after the provider decided its next request of this kind
    /// (`token:refresh_token`, `jwks.json`, see ``CrashRig/kind(of:)``), before the answer is sent.
    func arm(kind: String) {
        state.withLock { $0.armedKind = kind }
    }

    /// Called with every request the provider answered, before the answer is sent; fires an
    /// armed kill that matches.
    func answered(kind: String) async {
        let fires = state.withLock { state -> Bool in
            guard let armed = state.armedKind, armed == kind else { return false }
            state.armedKind = nil
            state.serverKills += 1
            return true
        }
        guard fires, let pid = await childPID() else { return }
        _ = kill(pid, SIGKILL)
    }

    private func childPID() async -> Int32? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
            let known = state.withLock { state -> Int32?? in
                if let pid = state.pid { return .some(pid) }
                if state.openTag == nil { return .some(nil) }
                state.pidWaiters.append(continuation)
                return .none
            }
            if let known { continuation.resume(returning: known) }
        }
    }

    /// How many armed kills fired.
    var serverKills: Int { state.withLock { $0.serverKills } }
}
