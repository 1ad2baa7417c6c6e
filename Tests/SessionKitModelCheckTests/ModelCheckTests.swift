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

    @Test("several threads find what one finds: the same states by depth, transitions and counterexample")
    func threadsChangeNothingButSpeed() {
        let one = Explorer(SessionMachineModel(), threads: 1).run(depth: 6)
        let three = Explorer(SessionMachineModel(), threads: 3).run(depth: 6)
        #expect(one.statesByDepth == three.statesByDepth)
        #expect(one.transitions == three.transitions)
        #expect(three.threads == 3)

        let broken = (Explorer(CounterToFive(), threads: 1).run(depth: 8), Explorer(CounterToFive(), threads: 3).run(depth: 8))
        #expect(broken.0.violation?.script == "up twice up twice down")
        #expect(broken.1.violation?.script == broken.0.violation?.script)
        #expect(broken.1.violation?.depth == 5)
        #expect(broken.1.transitions == broken.0.transitions)
    }

    @Test("a counterexample is also a Swift test line that replays it on a fresh model")
    func regressionTestLine() {
        let report = Explorer(CounterToFive()).run(depth: 6)
        #expect(
            report.violation?.test == "#expect(CounterToFive().violations(replaying: [.up, .twice, .up, .twice, .down]).isEmpty)")
        // The line's inputs break the invariant again; one step fewer does not.
        #expect(CounterToFive().violations(replaying: [.up, .twice, .up, .twice, .down]).map(\.invariant) == ["neverFive"])
        #expect(CounterToFive().violations(replaying: [.up, .twice, .up, .twice]).isEmpty)
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

/// A counter that must never reach five, with several ways there in five steps; breadth first and
/// in input order the first is 1, 2, 3, 6 and back down to 5 (3 to 4 to 5 comes after it).
private struct CounterToFive: ExplorableModel {
    enum Input { case up, twice, down }
    var name: String { "counter" }
    func initialState() -> Int { 0 }
    func inputs(in state: Int) -> [Input] { [.down, .twice, .up] }
    func step(_ state: inout Int, _ input: Input) -> [Violation] {
        switch input {
        case .up: state += 1
        case .twice: state = state == 2 ? 2 : state * 2
        case .down: state = max(0, state - 1)
        }
        return state == 5 ? [Violation("neverFive", "the counter reached five")] : []
    }
    func canonicalize(_ state: Int, into form: inout CanonicalForm) { form.write(state) }
    func script(_ path: [Input]) -> String { path.map { "\($0)" }.joined(separator: " ") }
}
