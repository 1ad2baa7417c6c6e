public import Foundation

/// Opens a URL in the person's browser; the seam of ``LoopbackPresenter``.
///
/// ``system`` uses the platform's opener where there is one (`open` on macOS; `xdg-open` on a Linux
/// desktop session) and otherwise prints the URL for the person to open. Tests and other front
/// ends make their own with ``init(_:)``: a scripted browser, a GUI toolkit's opener.
public struct BrowserOpener: Sendable {
    private let body: @Sendable (URL) async throws(HandoffError) -> Void

    /// Creates an opener from a closure; throwing ends the handoff with that error.
    public init(_ open: @escaping @Sendable (URL) async throws(HandoffError) -> Void) {
        self.body = open
    }

    /// Opens `url`.
    public func open(_ url: URL) async throws(HandoffError) {
        try await body(url)
    }

    /// ``platform`` when there is one, else ``printing(to:)`` to standard error.
    ///
    /// The URL is the only thing ever printed: the person must open it.
    public static var system: BrowserOpener {
        platform ?? printing()
    }

    /// The platform's own opener, or `nil` where there is none: `/usr/bin/open` on macOS, `xdg-open`
    /// on a Linux desktop session.
    ///
    /// It starts the command and returns without waiting for it; a command that cannot start or
    /// exits with a failure prints the URL to standard error instead.
    public static var platform: BrowserOpener? {
        #if os(macOS) || os(Linux)
            let environment = ProcessInfo.processInfo.environment
            return systemCommand(environment: environment, isExecutable: FileManager.default.isExecutableFile(atPath:))
                .map { running($0, fallback: standardError) }
        #else
            return nil
        #endif
    }

    /// Writes the URL on a line of its own, after a line asking the person to open it.
    ///
    /// - Parameter write: where the text goes; `nil` (the default) for standard error.
    public static func printing(to write: (@Sendable (String) -> Void)? = nil) -> BrowserOpener {
        let write = write ?? standardError
        return BrowserOpener { url in write(prompt(for: url)) }
    }

    /// The text ``printing(to:)`` writes.
    static func prompt(for url: URL) -> String {
        "Open this page in a browser to sign in:\n\n    \(url.absoluteString)\n\n"
    }

    static let standardError: @Sendable (String) -> Void = { text in
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// The command ``system`` runs, or `nil` when there is none to run.
    ///
    /// On Linux `xdg-open` is used only in a desktop session (`DISPLAY` or `WAYLAND_DISPLAY` set):
    /// without one it would start a text-mode browser inside the terminal the program runs in.
    static func systemCommand(environment: [String: String], isExecutable: (String) -> Bool) -> URL? {
        #if os(macOS)
            return isExecutable("/usr/bin/open") ? URL(fileURLWithPath: "/usr/bin/open") : nil
        #else
            let desktop = [environment["DISPLAY"], environment["WAYLAND_DISPLAY"]].contains { !($0 ?? "").isEmpty }
            guard desktop else { return nil }
            let directories = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
            return
                directories
                .map { URL(fileURLWithPath: String($0)).appendingPathComponent("xdg-open").path }
                .first(where: isExecutable)
                .map(URL.init(fileURLWithPath:))
        #endif
    }

    #if os(macOS) || os(Linux)
        /// Starts `command url` and returns without waiting for it (`xdg-open` may wait for the
        /// browser to quit); when it cannot start or later fails, `fallback` gets the printed prompt.
        static func running(_ command: URL, fallback: @escaping @Sendable (String) -> Void) -> BrowserOpener {
            BrowserOpener { url in
                let process = Process()
                process.executableURL = command
                process.arguments = [url.absoluteString]
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                let prompt = prompt(for: url)
                process.terminationHandler = { finished in
                    if finished.terminationReason != .exit || finished.terminationStatus != 0 { fallback(prompt) }
                }
                do {
                    try process.run()
                } catch {
                    fallback(prompt)
                }
            }
        }
    #endif
}
