public import Foundation

/// Makes a session whose work runs in the calling task's tree, passes it to `body`, and shuts it
/// down when `body` returns or throws: for scripts, command-line tools and tests that want no task
/// to outlive a scope (grpc-swift-2's `withGRPCClient` is the model).
///
/// The session is made as ``Session/init(configuration:transport:store:presenter:deviceKeys:clock:wallClock:random:)``
/// makes it, with ``SessionConfiguration/runsInHostTask`` set: its ``Session/run()`` is a child of
/// a task group this function opens. When `body` ends, the session is shut down (callers still
/// waiting are answered with ``SessionError/shutDown``, every task it started ends) before this
/// returns `body`'s result or rethrows its error. Nothing stored is changed by the shutdown: a
/// journaled sign-out resumes at the next ``Session/restore()``.
///
/// ```swift
/// let token = try await withSession(
///     configuration: configuration, transport: URLSessionTransport(clock: ContinuousClock()),
///     store: FileCredentialStore(directory: directory), presenter: LoopbackPresenter(), clock: ContinuousClock()
/// ) { session in
///     try await session.restore()
///     return try await session.validAccessToken()
/// }
/// ```
public func withSession<Result, Failure: Error>(
    configuration: SessionConfiguration, transport: any HTTPTransport, store: any CredentialStore, presenter: any HandoffPresenter,
    deviceKeys: DeviceKeySource = .automatic, clock: some Clock<Duration>, wallClock: (@Sendable () -> Date)? = nil,
    random: some RandomNumberGenerator & Sendable = SystemRandomNumberGenerator(),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Session) async throws(Failure) -> Result
) async throws(Failure) -> Result {
    var configuration = configuration
    configuration.runsInHostTask = true
    let session = Session(
        configuration: configuration, transport: transport, store: store, presenter: presenter, deviceKeys: deviceKeys, clock: clock,
        wallClock: wallClock, random: random)
    let outcome: Swift.Result<Result, Failure> = await withDiscardingTaskGroup { group in
        group.addTask { await session.run() }
        let outcome: Swift.Result<Result, Failure>
        do throws(Failure) {
            outcome = .success(try await body(session))
        } catch {
            outcome = .failure(error)
        }
        await session.shutdown()
        return outcome
    }
    return try outcome.get()
}
