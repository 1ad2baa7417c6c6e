import Foundation
import SessionKit
import SessionKitCore
import SessionKitTesting
import Synchronization
import Testing

/// What the project's session tests add to the test kit's environment: the exact event sequence
/// without dates, a sign-in in one line, the provider's page played by hand, and a wait that
/// names its condition.
extension SimulatedSessionEnvironment {
    /// The recorded events without dates: the exact sequence a test compares.
    var steps: [Step] { events.map(Step.init) }

    /// The simulated time (seconds since the clock started) of each recorded transition, in order.
    var transitionTimes: [Double] {
        events.compactMap { event in
            guard case .transition(let transition) = event else { return nil }
            return transition.date.timeIntervalSince(epoch)
        }
    }

    /// What the provider answered the last refresh it refused, as the `refreshRejected` reason carries it.
    var refusedRefreshAnswer: ProviderError? {
        events.reversed().lazy.compactMap { event -> ProviderError? in
            guard case .transition(let transition) = event, case .refreshRejected(let answer) = transition.reason.kind else { return nil }
            return answer
        }.first
    }

    // MARK: Driving

    /// Signs in as `subject` (the presenter approves) and returns the stored session.
    @discardableResult
    func signIn(as subject: String = "alice") async throws -> StoredSession {
        presenter.enqueue(.approve(subject: subject))
        try await session.signIn()
        return try #require(store.record.session)
    }

    /// Plays the provider's authorization page for the pending handoff (the latest presented
    /// request) and returns the callback URL, recording its code.
    func authorizePending(as subject: String = "alice", decision: SimulatedProviderDecision = .approve) throws -> URL {
        let request = try #require(presenter.presentedRequests.last)
        let callback = try provider.authorize(request.authorizationURL, subject: subject, decision: decision)
        issued.recordCallback(callback)
        return callback
    }

    /// Suspends until `condition` holds (``waitUntil(_:)``); `what` names the condition for the
    /// reader.
    func waitUntil(_ what: String, _ condition: () async -> Bool) async {
        await signal.wait(until: condition)
    }
}

// MARK: - Steps

extension SimulatedSessionEnvironment {
    /// One recorded event with its date removed.
    enum Step: Hashable, CustomStringConvertible {
        case move(SessionStage?, SessionStage, TransitionReason)
        case event(SessionEvent)

        init(_ event: SessionEvent) {
            if case .transition(let transition) = event {
                self = .move(transition.from, transition.to, transition.reason)
            } else {
                self = .event(event)
            }
        }

        var description: String {
            switch self {
            case .move(let from, let to, let reason): "\(from.map(\.rawValue) ?? "nil")→\(to) (\(reason))"
            case .event(let event): "\(event)"
            }
        }

        /// The three steps of a sign-in that the presenter approves for `subject`.
        static func signIn(_ subject: String = "alice") -> [Step] {
            [
                .move(.signedOut, .handoff, .signInRequested),
                .move(.handoff, .verifying, .callbackReceived),
                .move(.verifying, .active, .verified(subject: subject)),
            ]
        }

        /// A refresh of a token due in `dueIn` seconds (60 by default), served to `callers`.
        static func refresh(callers: Int = 1, dueIn: Int = 60) -> [Step] {
            [
                .move(.active, .refreshing, .tokenDue(inSeconds: dueIn, callers: 1)),
                .move(.refreshing, .active, .refreshed(callers: callers)),
            ]
        }
    }
}

/// The outcome of an async throwing call, for tests that start a call and look at its result later.
enum SessionCallResult<Value: Sendable>: Sendable {
    case value(Value)
    case error(SessionError)

    init(_ body: () async throws(SessionError) -> Value) async {
        do {
            self = .value(try await body())
        } catch {
            self = .error(error)
        }
    }

    var error: SessionError? {
        if case .error(let error) = self { return error }
        return nil
    }

    var value: Value? {
        if case .value(let value) = self { return value }
        return nil
    }
}

/// Values appended from any task, read in order.
final class Collected<Value: Sendable>: Sendable {
    private let storage = Locked<[Value]>([])

    func append(_ value: Value) {
        storage.withLock { $0.append(value) }
    }

    var values: [Value] { storage.withLock { $0 } }
}
