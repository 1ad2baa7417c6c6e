/// The counts of a crash run: kills, what each fresh checker found, and the losses.
struct CrashTally {
    var kills = 0
    var serverKills = 0
    var activeRecoveries = 0
    var journalRecoveries = 0
    var signedOutRecoveries = 0
    /// Recoveries that replayed a refresh token the provider had already rotated (needing the
    /// reuse grace period), split by how the kill was chosen.
    var windowHitsAtServer = 0
    var windowHitsAfterLine = 0
    var losses: [String] = []
    /// Journaled deletions refused on resume after the provider had disconnected (must stay 0).
    var deletionsRefusedAfterDisconnect = 0
    /// Children that crashed by themselves (a signal the test did not send, or the runtime's
    /// crash report on standard error); must stay 0.
    var childCrashes = 0

    var recoveries: Int { activeRecoveries + journalRecoveries + signedOutRecoveries }
    var windowHits: Int { windowHitsAtServer + windowHitsAfterLine }

    mutating func record(_ outcome: CrashRig.Outcome, round: Int, killedAtServer: Bool) {
        switch outcome {
        case .recovered(.active(let windowHit)):
            activeRecoveries += 1
            if windowHit {
                if killedAtServer { windowHitsAtServer += 1 } else { windowHitsAfterLine += 1 }
            }
        case .recovered(.pendingCompleted):
            journalRecoveries += 1
        case .recovered(.signedOut):
            signedOutRecoveries += 1
        case .lost(let why):
            losses.append("round \(round): \(why)")
        case .deletionRefusedAfterDisconnect:
            deletionsRefusedAfterDisconnect += 1
        }
    }

    var summary: String {
        "crash test: \(kills) kills (\(serverKills) inside a token request, \(kills - serverKills) after a random progress line), "
            + "\(recoveries) recoveries (\(activeRecoveries) active sessions, \(journalRecoveries) journaled operations completed, "
            + "\(signedOutRecoveries) signed out), \(losses.count) losses, \(childCrashes) child crashes, "
            + "\(deletionsRefusedAfterDisconnect) deletions refused after the provider disconnected; rotation window hit \(windowHits) times "
            + "(\(windowHitsAtServer) inside a token request, \(windowHitsAfterLine) after a line), "
            + "\(recoveries - windowHits) recoveries needed no grace period"
    }
}
