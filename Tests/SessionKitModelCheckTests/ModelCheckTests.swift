import Testing

@testable import SessionKitModelCheck

/// The model checker at small depths on every build, the thread sanitizer's included (the deep run
/// is `Scripts/model-check.sh`, a release build of its own).
@Suite("Model check (small depths)")
struct ModelCheckTests {
    @Test("every input sequence of the session machine to depth 5 keeps every invariant")
    func sessionMachine() {
        let report = Explorer(SessionMachineModel()).run(depth: 5)
        #expect(report.violation == nil, "\(report)")
        #expect(report.statesByDepth.count == 6)
        #expect(report.states > 1000)
    }

    @Test("the procedures, the handoff machines and the shell keep every invariant at small depths")
    func otherModels() {
        let reports = [
            Explorer(RefreshProcedureModel()).run(depth: 12),
            Explorer(SignOutProcedureModel()).run(depth: 12),
            Explorer(DisconnectProcedureModel()).run(depth: 12),
            Explorer(AccessRequestMachineModel()).run(depth: 8),
            Explorer(CredentialImportMachineModel()).run(depth: 6),
            Explorer(ShellModel()).run(depth: 8),
        ]
        for report in reports {
            #expect(report.violation == nil, "\(report)")
            #expect(report.states > 30, "\(report.model) explored only \(report.states) states")
        }
    }

    @Test("fingerprints merge no distinct states: the same counts as with whole canonical forms")
    func fingerprintsAreExact() {
        let model = SessionMachineModel()
        let fingerprinted = Explorer(model).run(depth: 5)
        let whole = Explorer(model).runComparingWholeForms(depth: 5)
        #expect(fingerprinted.states == whole.states)
        #expect(fingerprinted.statesByDepth == whole.statesByDepth)
    }

    @Test("a counterexample is one line of machine script, with the callers, generations and timers the machine saw")
    func scriptLine() {
        let model = SessionMachineModel()
        let explorer = Explorer(model)
        // signIn, then the handoff's timeout fires: find both inputs by what they are.
        var state = model.initialState()
        let signIn = model.inputs(in: state).firstIndex { if case .signIn = $0 { true } else { false } }
        #expect(signIn != nil)
        _ = model.step(&state, model.inputs(in: state)[signIn ?? 0])
        let timer = model.inputs(in: state).firstIndex { if case .timerFires = $0 { true } else { false } }
        #expect(timer != nil)
        let script = model.script(explorer.replay([signIn ?? 0, timer ?? 0]))
        #expect(script == "var m = MachineScript(); _ = m.signIn(attempt: 1, waiter: 1); _ = m.timerFired(1)")
    }
}
