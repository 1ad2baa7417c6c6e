public import Foundation

/// Opens a URL only when an installed app claims it as a universal link, and says whether one did.
///
/// This is the app-to-app first try of ``SystemPresenter``: the identity provider's own app opens
/// the authorization URL when it is installed. On iOS the implementation is
/// `UIApplication.open(_:options:)` with `.universalLinksOnly`; tests use a fake.
public protocol UniversalLinkOpening: Sendable {
    /// Opens `url` in the app that claims it; returns `false`, having shown nothing, when no app does.
    func openAsUniversalLink(_ url: URL) async -> Bool
}
