import Foundation
import SessionKit
public import SessionKitCore
public import SessionKitHandoffs

/// A `CredentialImporter` that plays the system and the exporting app from a script.
///
/// ``offer(_:)`` makes a token for a ``Behaviour`` (serve data, fail, hang, answer after a delay)
/// and ``activity(for:)`` the launch activity carrying it. Each token is served once: a second
/// import with it fails, as the system's would. Tokens are deterministic (`…-0001`, `…-0002`),
/// so simulated runs repeat exactly. ``log`` records each import by the token's number, never the
/// token.
///
/// ```swift
/// let exporter = SimulatedCredentialExporter(clock: clock)
/// let token = exporter.offer(.serve(SimulatedCXFDocument.sample().jsonBytes()))
/// let coordinator = CredentialImportCoordinator(importer: exporter, ledger: ledger,
///                                               intake: SimulatedCredentialExporter.intake, clock: clock)
/// let document = try await coordinator.handle(exporter.activity(for: token))
/// ```
public final class SimulatedCredentialExporter: CredentialImporter {
    /// What happens when the app imports with one token. Printing one shows sizes, not data.
    @nonexhaustive
    public indirect enum Behaviour: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// The exporter hands over `bytes` (CXF JSON, in whatever version they say).
        case serve([UInt8])
        /// The import fails with `reason`.
        case fail(String)
        /// Nothing ever comes back: the import lasts until its task is cancelled.
        case hang
        /// `behaviour`, after `delay` of simulated time.
        case after(Duration, Behaviour)

        /// A summary with sizes only.
        public var description: String { SimulatedCredentialExporter.summary(self) }
        /// A summary with sizes only.
        public var debugDescription: String { description }
        /// Hides the data from `dump` and debuggers.
        public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .enum) }
    }

    /// The activity type and token key the simulated system uses.
    public static let intake = CredentialImportIntake(
        activityType: "dev.sessionkit.simulated.credential-exchange", tokenKey: "SimulatedCredentialImportToken")

    private struct Offer {
        var number: Int
        var behaviour: Behaviour
        var consumed = false
    }

    private struct State {
        var offers: [CredentialImportToken: Offer] = [:]
        var log: [SimulatedCredentialExporterLogEntry] = []
    }

    private let clock: TestClock
    private let state = Locked(State())
    private let suspensions = SuspensionPool()

    /// Creates an exporter whose delays run on `clock`.
    public init(clock: TestClock) {
        self.clock = clock
    }

    /// Registers `behaviour` under a new token and returns the token.
    public func offer(_ behaviour: Behaviour) -> CredentialImportToken {
        state.withLock { state in
            let number = state.offers.count + 1
            let token = CredentialImportToken(UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number))!)
            state.offers[token] = Offer(number: number, behaviour: behaviour)
            return token
        }
    }

    /// The activity the simulated system launches the app with for `token`.
    public func activity(for token: CredentialImportToken) -> CredentialImportActivity {
        CredentialImportActivity(activityType: Self.intake.activityType, userInfo: [Self.intake.tokenKey: .uuid(token.uuid)])
    }

    /// Every import asked for so far, in order.
    public var log: [SimulatedCredentialExporterLogEntry] {
        state.withLock { $0.log }
    }

    /// How many imports hang right now.
    public var hangingImportCount: Int {
        suspensions.count
    }

    /// Returns once at least `count` imports hang (``Behaviour/hang``), or when the calling task
    /// is cancelled.
    public func waitForHangingImports(count: Int = 1) async {
        await suspensions.waitForSuspended(count: count)
    }

    /// Plays the token's behaviour the first time; any later call with it fails.
    public func importCredentials(token: CredentialImportToken) async throws(CredentialImporterError) -> CredentialExchangePayload {
        let (number, behaviour) = state.withLock { state -> (Int?, Behaviour?) in
            guard var offer = state.offers[token] else {
                state.log.append(SimulatedCredentialExporterLogEntry(tokenNumber: nil, outcome: "unknown token"))
                return (nil, nil)
            }
            defer { state.offers[token] = offer }
            guard !offer.consumed else {
                state.log.append(SimulatedCredentialExporterLogEntry(tokenNumber: offer.number, outcome: "token already consumed"))
                return (offer.number, nil)
            }
            offer.consumed = true
            state.log.append(SimulatedCredentialExporterLogEntry(tokenNumber: offer.number, outcome: Self.summary(offer.behaviour)))
            return (offer.number, offer.behaviour)
        }
        guard let behaviour else {
            throw .failed(
                number == nil ? "SimulatedCredentialExporter: unknown token" : "SimulatedCredentialExporter: token already consumed")
        }
        return try await play(behaviour)
    }

    private func play(_ behaviour: Behaviour) async throws(CredentialImporterError) -> CredentialExchangePayload {
        switch behaviour {
        case .serve(let bytes):
            return CredentialExchangePayload(bytes)
        case .fail(let reason):
            throw .failed(reason)
        case .hang:
            await suspensions.suspendUntilCancelled()
            throw .cancelled
        case .after(let delay, let later):
            do {
                try await clock.sleep(for: delay)
            } catch {
                throw .cancelled
            }
            return try await play(later)
        }
    }

    fileprivate static func summary(_ behaviour: Behaviour) -> String {
        switch behaviour {
        case .serve(let bytes): "serve \(bytes.count) bytes"
        case .fail(let reason): "fail: \(reason)"
        case .hang: "hang"
        case .after(let delay, let later): "after \(delay): \(summary(later))"
        }
    }
}
