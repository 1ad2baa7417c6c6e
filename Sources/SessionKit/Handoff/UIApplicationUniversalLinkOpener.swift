#if canImport(UIKit) && !os(watchOS)
    public import Foundation
    import UIKit

    /// ``UniversalLinkOpening`` through `UIApplication.open(_:options:)` with `.universalLinksOnly`.
    ///
    /// Compiled only where UIKit exists; the Linux build and tests do not cover it. It is one call:
    /// the decisions around it are ``SystemPresenter``'s.
    public struct UIApplicationUniversalLinkOpener: UniversalLinkOpening {
        /// Creates the opener.
        public init() {}

        /// Opens `url` only in an app that claims it as a universal link; `false` when none does.
        @MainActor
        public func openAsUniversalLink(_ url: URL) async -> Bool {
            await UIApplication.shared.open(url, options: [.universalLinksOnly: true])
        }
    }
#endif
