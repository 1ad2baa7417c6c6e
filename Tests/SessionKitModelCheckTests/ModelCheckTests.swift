import Testing

@testable import SessionKitModelCheck

/// The model checker at a small depth on every build (the deep run is `Scripts/model-check.sh`).
@Suite("Model check (small depth)")
struct ModelCheckTests {
    @Test("every input sequence of the session machine to depth 5 keeps every invariant")
    func sessionMachine() {
        let report = Explorer(SessionMachineModel()).run(depth: 5)
        #expect(report.violation == nil, "\(report)")
        #expect(report.states > 1000)
    }
}
