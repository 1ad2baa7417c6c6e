import Foundation
import Testing

@testable import SessionKit

/// Which browser opener the platform gets, and that every failure to open still shows the URL.
struct BrowserOpenerTests {
    private static let url = URL(string: "https://id.example.com/authorize?state=s")!

    @Test func printingWritesTheURLOnALineOfItsOwn() async throws {
        let written = Collector<String>()

        try await BrowserOpener.printing(to: { written.append($0) }).open(Self.url)

        #expect(written.values == ["Open this page in a browser to sign in:\n\n    \(Self.url.absoluteString)\n\n"])
    }

    #if os(Linux)
        @Test func xdgOpenIsUsedOnlyInADesktopSessionAndFoundOnThePath() {
            let found = { (path: String) in path == "/opt/tools/xdg-open" }
            let path = "/usr/bin:/opt/tools"

            #expect(BrowserOpener.systemCommand(environment: ["PATH": path], isExecutable: found) == nil, "no display: print instead")
            #expect(
                BrowserOpener.systemCommand(environment: ["PATH": path, "DISPLAY": ":0"], isExecutable: found)
                    == URL(fileURLWithPath: "/opt/tools/xdg-open"))
            #expect(
                BrowserOpener.systemCommand(environment: ["PATH": path, "WAYLAND_DISPLAY": "wayland-0"], isExecutable: found) != nil)
            #expect(BrowserOpener.systemCommand(environment: ["PATH": "/usr/bin", "DISPLAY": ":0"], isExecutable: found) == nil)
            #expect(BrowserOpener.systemCommand(environment: ["PATH": path, "DISPLAY": ""], isExecutable: found) == nil)
        }
    #endif

    #if os(Linux) || os(macOS)
        @Test func aCommandThatCannotStartFallsBackToPrinting() async throws {
            let (printed, continuation) = AsyncStream.makeStream(of: String.self)
            let opener = BrowserOpener.running(URL(fileURLWithPath: "/nonexistent/xdg-open")) { continuation.yield($0) }

            try await opener.open(Self.url)

            #expect(await printed.first { _ in true } == BrowserOpener.prompt(for: Self.url))
        }

        @Test func aCommandThatFailsFallsBackToPrinting() async throws {
            let (printed, continuation) = AsyncStream.makeStream(of: String.self)
            let opener = BrowserOpener.running(URL(fileURLWithPath: "/bin/false")) { continuation.yield($0) }

            try await opener.open(Self.url)

            #expect(await printed.first { _ in true } == BrowserOpener.prompt(for: Self.url))
        }

        @Test func theCommandGetsTheURLAsItsOnlyArgument() async throws {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("opener-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let script = directory.appendingPathComponent("fake-open")
            let record = directory.appendingPathComponent("argument")
            // Exits non-zero after recording, so the fallback tells the test the script has finished.
            try "#!/bin/sh\nprintf '%s|%s' \"$#\" \"$1\" > '\(record.path)'\nexit 3\n".write(to: script, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
            let (finished, continuation) = AsyncStream.makeStream(of: String.self)

            try await BrowserOpener.running(script) { continuation.yield($0) }.open(Self.url)
            _ = await finished.first { _ in true }

            #expect(try String(contentsOf: record, encoding: .utf8) == "1|\(Self.url.absoluteString)")
        }
    #endif
}
