import Foundation
import SessionKit
import Synchronization

/// A universal-link opener that either plays the provider's installed app or finds none.
final class FakeAppOpener: UniversalLinkOpening {
    private let app = Locked<(@Sendable (URL) async -> Void)?>(nil)
    private let installed: Bool
    let opened = Collector<URL>()

    /// `installed: false` claims nothing; `true` claims every URL. Either way the closure set with
    /// ``play(_:)`` runs first.
    init(installed: Bool) {
        self.installed = installed
    }

    /// What the provider's app does with the authorization URL (typically: approve, then open the
    /// redirect URI, which reaches `Session.handle(_:)`).
    func play(_ app: @escaping @Sendable (URL) async -> Void) {
        self.app.withLock { $0 = app }
    }

    func openAsUniversalLink(_ url: URL) async -> Bool {
        opened.append(url)
        await app.withLock { $0 }?(url)
        return installed
    }
}

/// A browser session with a scripted answer, recording how it was asked.
final class FakeBrowserSession: BrowserSession {
    struct Call: Sendable, Equatable {
        var url: URL
        var callback: BrowserSessionCallback
        var ephemeral: Bool
    }

    private let answer: @Sendable (URL) throws(BrowserSessionError) -> URL
    let calls = Collector<Call>()

    init(answer: @escaping @Sendable (URL) throws(BrowserSessionError) -> URL) {
        self.answer = answer
    }

    func authenticate(at url: URL, callback: BrowserSessionCallback, ephemeral: Bool) async throws(BrowserSessionError) -> URL {
        calls.append(Call(url: url, callback: callback, ephemeral: ephemeral))
        return try answer(url)
    }
}
