import Foundation
import Testing

@testable import SessionKit

/// The one admission rule for a browser sign-in, a device sign-in and a guest session, over every
/// stage the scripts reach: the table in ``SignInAdmission``'s documentation, row by row.
@Suite struct SignInAdmissionTests {
    typealias Admission = SignInAdmission<ScriptTokens, Int>

    private static func line(_ admission: Admission) -> String {
        switch admission {
        case .start(let from, let guest, let leaving):
            "start from \(from)" + (guest == nil ? "" : " over the guest") + (leaving == nil ? "" : " leaving the sign-out")
        case .joinGuestBootstrap: "join"
        case .answer(.tokens(let tokens)): "tokens \(tokens.name)"
        case .answer(.failed(let error)): "\(error.code.name)"
        case .answer(let other): "answer \(other)"
        case .outOfService: "out of service"
        }
    }

    private static func rule(_ kind: SignInKind, _ script: MachineScript) -> String {
        line(Admission(kind, in: script.machine.state))
    }

    @Test(arguments: [SignInKind.browser, .device])
    func aSignInFromEachStage(kind: SignInKind) {
        #expect(Self.rule(kind, .makeSignedOut()) == "start from signedOut")
        #expect(Self.rule(kind, .makeRevoking()) == "start from signedOut leaving the sign-out")
        #expect(Self.rule(kind, .makeEndingProviderSession()) == "start from signedOut leaving the sign-out")
        #expect(Self.rule(kind, .makeGuestActive()) == "start from active over the guest")
        #expect(Self.rule(kind, .makeGuestRenewing()) == "sign_in_in_progress")
        #expect(Self.rule(kind, .makeGuestBootstrapping()) == "sign_in_in_progress")
        #expect(Self.rule(kind, .makeHandoff()) == "sign_in_in_progress")
        #expect(Self.rule(kind, .makeVerifying()) == "sign_in_in_progress")
        #expect(Self.rule(kind, .makeActive()) == "already_signed_in")
        #expect(Self.rule(kind, .makeRefreshing()) == "already_signed_in")
        #expect(Self.rule(kind, .makeDisconnecting()) == "account_deletion_in_progress")
    }

    @Test func aGuestSessionFromEachStage() {
        #expect(Self.rule(.guest, .makeSignedOut()) == "start from signedOut")
        #expect(Self.rule(.guest, .makeRevoking()) == "sign_out_in_progress")
        #expect(Self.rule(.guest, .makeGuestActive()) == "tokens \(MachineScript.makeGuestActive().activeTokens?.name ?? "?")")
        #expect(Self.rule(.guest, .makeGuestRenewing()).hasPrefix("tokens "))
        #expect(Self.rule(.guest, .makeGuestBootstrapping()) == "join")
        #expect(Self.rule(.guest, .makeHandoff()) == "sign_in_in_progress")
        #expect(Self.rule(.guest, .makeVerifying()) == "sign_in_in_progress")
        #expect(Self.rule(.guest, .makeActive()) == "already_signed_in")
        #expect(Self.rule(.guest, .makeRefreshing()) == "already_signed_in")
        #expect(Self.rule(.guest, .makeDisconnecting()) == "account_deletion_in_progress")
    }

    @Test func aStoppedMachineAdmitsNothing() {
        var script = MachineScript.makeActive()
        _ = script.shutDown()
        for kind in [SignInKind.browser, .device, .guest] {
            #expect(Self.rule(kind, script) == "out of service")
        }
    }
}
