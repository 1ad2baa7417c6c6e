import Foundation
import SessionKit
import SessionKitTesting
import Synchronization

/// Prints one line per transition or note, as text or as JSON lines, with the simulated time.
final class Narrator: Sendable {
    private struct Line: Encodable {
        var scenario: String
        var t: Double
        var from: String?
        var to: String?
        var reason: String?
        var note: String?
    }

    let json: Bool
    private let scenario = Locked("")
    private let epoch: Date

    init(json: Bool, epoch: Date) {
        self.json = json
        self.epoch = epoch
    }

    func begin(_ name: String, summary: String) {
        scenario.withLock { $0 = name }
        if !json { Self.write("\n== \(name): \(summary)") }
    }

    func event(_ event: SessionEvent) {
        switch event {
        case .transition(let transition):
            guard transition.reason != .current else { return }
            lastDate.withLock { $0 = transition.date }
            emit(
                Line(
                    scenario: scenario.withLock { $0 }, t: transition.date.timeIntervalSince(epoch), from: transition.from?.rawValue,
                    to: transition.to.rawValue, reason: transition.reason.description))
        case .deleteUserData(let subject):
            note("event: delete the app's data for \(subject)", at: nil)
        case .subjectChanged(let from, let to, _):
            note("event: account merged, \(from) is now \(to)", at: nil)
        case .anonymousUserPromoted(let subject):
            note("event: anonymous user \(subject) promoted", at: nil)
        case .guestStartedOver(let previous, let subject):
            note("event: guest \(previous) is gone; the device is now guest \(subject)", at: nil)
        case .providerLogout(let outcome):
            note("event: provider logout \(outcome)", at: nil)
        case .deferredRevocationCompleted:
            // Background work whose timing relative to the script varies; the scenario reports it itself.
            break
        case .callbackRefused(let refusal):
            note("event: callback refused (\(refusal))", at: nil)
        case .credentialStoreFallback(let reason):
            note("event: credentials kept in files (\(reason))", at: nil)
        case .credentialStoreLocked:
            note("event: the device is locked; the credentials cannot be read yet", at: nil)
        case .sessionFailed:
            note("event: the session stopped after an internal inconsistency", at: nil)
        }
    }

    func note(_ text: String, at date: Date?) {
        emit(Line(scenario: scenario.withLock { $0 }, t: (date ?? lastDate.withLock { $0 }).timeIntervalSince(epoch), note: text))
    }

    let lastDate = Locked(Date(timeIntervalSince1970: 0))

    private func emit(_ line: Line) {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Self.write(String(decoding: (try? encoder.encode(line)) ?? Data(), as: UTF8.self))
            return
        }
        let time = "t=+\(Self.format(line.t))s"
        let padded = time.padding(toLength: max(12, time.count + 2), withPad: " ", startingAt: 0)
        if let note = line.note {
            Self.write("\(padded)· \(note)")
        } else {
            Self.write("\(padded)\(line.from ?? "—") → \(line.to ?? "—")  (\(line.reason ?? ""))")
        }
    }

    /// Writes one line to standard output unbuffered, so it interleaves correctly with prompts.
    static func write(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func format(_ seconds: Double) -> String {
        let rounded = (seconds * 1000).rounded() / 1000
        if rounded == rounded.rounded() { return String(Int(rounded)) }
        return String(format: "%.3f", rounded)
    }
}
