#if canImport(AuthenticationServices)
    public import AuthenticationServices

    extension SystemPresenter {
        /// The system presenter for an Apple app: the provider's app through a universal link (iOS),
        /// else `ASWebAuthenticationSession` presented from the window `presentationAnchor` returns.
        ///
        /// Compiled only on Apple platforms; the Linux tests cover the decisions, not this wiring.
        public init(
            presentationAnchor: @escaping @MainActor @Sendable () -> ASPresentationAnchor,
            prefersEphemeralBrowserSession: Bool = true
        ) {
            #if canImport(UIKit) && !os(watchOS)
                let opener: (any UniversalLinkOpening)? = UIApplicationUniversalLinkOpener()
            #else
                let opener: (any UniversalLinkOpening)? = nil
            #endif
            self.init(
                appOpener: opener, browser: WebAuthenticationBrowserSession(presentationAnchor: presentationAnchor),
                prefersEphemeralBrowserSession: prefersEphemeralBrowserSession)
        }
    }
#endif
