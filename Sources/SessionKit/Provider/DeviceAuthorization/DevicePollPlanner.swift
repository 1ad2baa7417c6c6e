/// Decides, poll by poll, how a device authorization grant (RFC 8628 §3.4, §3.5) goes on: a pure
/// value with no clock and no I/O.
///
/// The owner waits on its injected clock for the duration a `DevicePollStep.poll(after:)` step
/// names, polls with ``ProviderClient/pollDeviceToken(_:)``, and feeds the answer back with the
/// time elapsed since the device authorization response arrived:
///
/// ```swift
/// var planner = DevicePollPlanner(authorization)
/// var step = planner.firstStep
/// while case .poll(let wait) = step {
///     try await clock.sleep(for: wait)
///     let answer: DevicePollAnswer
///     do throws(ProviderError) {
///         answer = .tokens(try await client.pollDeviceToken(authorization))
///     } catch {
///         answer = DevicePollAnswer(.failure(error))
///     }
///     step = planner.next(after: answer, elapsed: started.duration(to: clock.now))
/// }
/// ```
///
/// Rules: every poll waits at least the interval (the response's, 5 s by default, never under
/// ``minimumInterval``); `slow_down` adds 5 s to it for this and every later poll; a transient
/// failure doubles the wait for each one in a row (§3.5 asks for a lower rate after a timeout:
/// twice the interval after one, four times after two, …),
/// up to ``maximumBackoff`` or the interval if that is longer, and never less than a
/// `Retry-After`; no poll is planned at or past `expires_in`, which fails the sign-in as
/// ``DevicePollFailure/expired``. Once finished or failed, the same step is returned for any later answer.
package struct DevicePollPlanner: Sendable, Equatable {
    /// The shortest interval the planner ever waits, whatever the provider says.
    package static let minimumInterval: Duration = .seconds(1)
    /// What `slow_down` adds to the interval (§3.5).
    package static let slowDownIncrement: Duration = .seconds(5)
    /// The longest wait a run of transient failures grows to, unless the interval itself is longer.
    package static let maximumBackoff: Duration = .seconds(60)

    /// The interval polls wait now, `slow_down` increases included.
    package private(set) var interval: Duration
    /// How long the device code is valid, from when the response arrived.
    package let expiresIn: Duration
    /// How many answers were fed in.
    package private(set) var answerCount = 0
    /// Transient failures in a row, which double the wait.
    package private(set) var consecutiveTransientFailures = 0
    /// The step that ended polling, once it ended.
    package private(set) var outcome: DevicePollStep?

    /// A planner for one device authorization response.
    package init(_ authorization: DeviceAuthorization) {
        interval = max(Self.duration(seconds: authorization.interval), Self.minimumInterval)
        expiresIn = Self.duration(seconds: authorization.expiresIn)
    }

    /// The first step: wait one interval, then poll.
    package var firstStep: DevicePollStep {
        plan(wait: interval, elapsed: .zero)
    }

    /// The step after `answer`, the poll's outcome, arrived `elapsed` after the device
    /// authorization response.
    package mutating func next(after answer: DevicePollAnswer, elapsed: Duration) -> DevicePollStep {
        if let outcome { return outcome }
        answerCount += 1
        let step: DevicePollStep
        switch answer {
        case .tokens(let response):
            // Granted, however late: the provider's answer decides, not the local estimate.
            step = .finished(response)
        case .authorizationPending:
            consecutiveTransientFailures = 0
            step = plan(wait: interval, elapsed: elapsed)
        case .slowDown:
            consecutiveTransientFailures = 0
            interval += Self.slowDownIncrement
            step = plan(wait: interval, elapsed: elapsed)
        case .accessDenied:
            step = .failed(.accessDenied)
        case .expiredToken:
            step = .failed(.expired)
        case .transientFailure(let retryAfter):
            consecutiveTransientFailures += 1
            let cap = max(interval, Self.maximumBackoff)
            var wait = interval
            for _ in 0..<min(consecutiveTransientFailures, 16) where wait < cap {
                wait = min(wait * 2, cap)
            }
            if let retryAfter, retryAfter > wait { wait = retryAfter }
            step = plan(wait: wait, elapsed: elapsed)
        case .rejected(let error):
            step = .failed(.rejected(error))
        case .cancelled:
            step = .failed(.cancelled)
        }
        if case .poll = step {} else { outcome = step }
        return step
    }

    private func plan(wait: Duration, elapsed: Duration) -> DevicePollStep {
        elapsed + wait >= expiresIn ? .failed(.expired) : .poll(after: wait)
    }

    private static func duration(seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        // A provider may send any number; a day is longer than any device code lives.
        return .milliseconds(Int64((min(seconds, 86_400) * 1000).rounded()))
    }
}
