#if canImport(AuthenticationServices)
    @preconcurrency public import AuthenticationServices
    public import Foundation

    /// ``BrowserSession`` through `ASWebAuthenticationSession`.
    ///
    /// Compiled only where AuthenticationServices exists; the Linux build and tests do not cover it.
    /// It starts one session, maps its completion to a URL or a ``BrowserSessionError``, and cancels
    /// the session when the calling task is cancelled; every decision is ``SystemPresenter``'s.
    public struct WebAuthenticationBrowserSession: BrowserSession {
        private let presentationAnchor: @MainActor @Sendable () -> ASPresentationAnchor

        /// Creates the browser session; `presentationAnchor` returns the window to present from.
        public init(presentationAnchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor) {
            self.presentationAnchor = presentationAnchor
        }

        /// Runs one `ASWebAuthenticationSession` and returns its callback URL.
        @MainActor
        public func authenticate(
            at url: URL, callback: BrowserSessionCallback, ephemeral: Bool
        ) async throws(BrowserSessionError) -> URL {
            let running = Running(anchor: presentationAnchor)
            let result = await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Result<URL, BrowserSessionError>, Never>) in
                    running.continuation = continuation
                    guard !running.isCancelled else { return running.finish(.failure(.cancelled)) }
                    let session = ASWebAuthenticationSession(url: url, callback: callback.system) { @Sendable url, error in
                        let result = Self.result(url, error)
                        Task { @MainActor in running.finish(result) }
                    }
                    session.prefersEphemeralWebBrowserSession = ephemeral
                    session.presentationContextProvider = running
                    running.session = session
                    if !session.start() { running.finish(.failure(.couldNotStart)) }
                }
            } onCancel: {
                Task { @MainActor in running.cancel() }
            }
            return try result.get()
        }

        private static func result(_ url: URL?, _ error: (any Error)?) -> Result<URL, BrowserSessionError> {
            if let url { return .success(url) }
            guard let error = error as? ASWebAuthenticationSessionError else {
                return .failure(.failed(error.map { ($0 as NSError).localizedDescription } ?? "no callback URL"))
            }
            switch error.code {
            case .canceledLogin: return .failure(.cancelled)
            case .presentationContextNotProvided, .presentationContextInvalid: return .failure(.noPresentationAnchor)
            @unknown default: return .failure(.failed(error.localizedDescription))
            }
        }

        /// Keeps the running session alive, answers its anchor question, and resumes the caller once.
        @MainActor
        private final class Running: NSObject, ASWebAuthenticationPresentationContextProviding {
            nonisolated let anchor: @MainActor @Sendable () -> ASPresentationAnchor
            var session: ASWebAuthenticationSession?
            var continuation: CheckedContinuation<Result<URL, BrowserSessionError>, Never>?
            var isCancelled = false

            init(anchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor) {
                self.anchor = anchor
            }

            func finish(_ result: Result<URL, BrowserSessionError>) {
                continuation?.resume(returning: result)
                continuation = nil
                session = nil
            }

            func cancel() {
                isCancelled = true
                // The session then completes with `canceledLogin`, which resumes the caller.
                session?.cancel()
            }

            nonisolated func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor {
                // The system asks on the main thread.
                MainActor.assumeIsolated { anchor() }
            }
        }
    }

    extension BrowserSessionCallback {
        fileprivate var system: ASWebAuthenticationSession.Callback {
            switch self {
            case .customScheme(let scheme): .customScheme(scheme)
            case .https(let host, let path): .https(host: host, path: path)
            }
        }
    }
#endif
