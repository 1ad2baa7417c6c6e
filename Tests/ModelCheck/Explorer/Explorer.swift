import Foundation

/// A broken invariant: its name, and what was seen.
public struct Violation: Sendable, Equatable, CustomStringConvertible {
    /// The invariant's name, as the explorer's documentation lists it.
    public var invariant: String
    /// What broke it, in a sentence (never a token value: the models hold none).
    public var detail: String

    public init(_ invariant: String, _ detail: String) {
        self.invariant = invariant
        self.detail = detail
    }

    public var description: String { "\(invariant): \(detail)" }
}

/// A model the explorer walks: one initial state, the inputs each state accepts, one step, and a
/// canonical form that decides which states are the same.
public protocol ExplorableModel {
    associatedtype State
    associatedtype Input

    /// The model's name in reports.
    var name: String { get }
    /// The state before any input.
    func initialState() -> State
    /// Every input `state` accepts, in a fixed order (a counterexample is replayed by index).
    func inputs(in state: State) -> [Input]
    /// Feeds `input` and checks every invariant after the step; an empty list when all hold.
    func step(_ state: inout State, _ input: Input) -> [Violation]
    /// Writes the canonical form of `state`: two states with the same form behave the same for
    /// every sequence of inputs.
    func canonicalize(_ state: State, into form: inout CanonicalForm)
    /// The inputs from the initial state as one line of script, ready to paste into a test.
    func script(_ path: [Input]) -> String
}

/// A 128-bit fingerprint of a canonical form, written word by word.
///
/// Two independent 64-bit mixes over the words (multiply-xorshift and add-multiply-rotate, with
/// different constants): for hashes that behave like random ones, the chance that two distinct
/// forms among a million share both is about 10⁻²⁶.
public struct CanonicalForm {
    private var first: UInt64 = 0xcbf2_9ce4_8422_2325
    private var second: UInt64 = 0x9e37_79b9_7f4a_7c15
    private var words = 0
    /// Every word written, when the form is kept whole (to check the fingerprints against).
    var kept: [UInt64]?

    public init() {}

    init(keepingWords: Bool) {
        kept = keepingWords ? [] : nil
    }

    public mutating func write(_ word: UInt64) {
        // Two word-at-a-time mixes with independent constants (splitmix-style finalisers).
        first = (first ^ word) &* 0x0000_0100_0000_01b3
        first ^= first >> 29
        second = (second &+ word) &* 0xff51_afd7_ed55_8ccd
        second = (second << 31) | (second >> 33)
        words += 1
        kept?.append(word)
    }

    public mutating func write(_ word: Int) { write(UInt64(bitPattern: Int64(word))) }

    public mutating func write(_ flag: Bool) { write(flag ? 1 as UInt64 : 0) }

    /// Writes a tag that keeps the parts of a form apart.
    public mutating func tag(_ value: UInt64) { write(0xffff_0000_0000_0000 | value) }

    var fingerprint: Fingerprint { Fingerprint(first: first ^ UInt64(words), second: second) }
}

struct Fingerprint: Hashable {
    var first: UInt64
    var second: UInt64
}

/// What one exploration found.
public struct ExplorationReport: Sendable, CustomStringConvertible {
    /// The model explored.
    public var model: String
    /// The depth asked for.
    public var depth: Int
    /// Distinct canonical states reached (the initial one included).
    public var states: Int
    /// Steps taken (every input from every distinct state up to the depth).
    public var transitions: Int
    /// Distinct states first reached at each depth, index 0 being the initial state.
    public var statesByDepth: [Int]
    /// Wall-clock seconds.
    public var seconds: Double
    /// The first broken invariant, at the smallest depth, with its input sequence as a script.
    public var violation: (violation: Violation, script: String, depth: Int)?

    /// Distinct states per second.
    public var statesPerSecond: Double { seconds > 0 ? Double(states) / seconds : 0 }

    public var description: String {
        var lines = [
            String(
                format: "%@: depth %d, %d states, %d transitions, %.2f s (%.0f states/s)", model, depth, states, transitions, seconds,
                statesPerSecond),
            "  new states by depth: " + statesByDepth.map(String.init).joined(separator: " "),
        ]
        if let (violation, script, depth) = violation {
            lines.append("  VIOLATION at depth \(depth) — \(violation)")
            lines.append("  counterexample: \(script)")
        } else {
            lines.append("  every invariant held")
        }
        return lines.joined(separator: "\n")
    }
}

/// Breadth-first exploration of every input sequence up to a depth, states deduplicated by their
/// canonical form; the first violation is therefore one with the shortest input sequence.
public struct Explorer<Model: ExplorableModel> {
    public let model: Model

    public init(_ model: Model) {
        self.model = model
    }

    /// Explores up to `depth` inputs (stopping early, once `maxStates` distinct states were seen).
    public func run(depth: Int, maxStates: Int = .max) -> ExplorationReport {
        run(depth: depth, maxStates: maxStates, visited: Set<Fingerprint>()) { fingerprint($0) }
    }

    /// The same exploration with states told apart by their whole canonical form instead of its
    /// fingerprint: slower and larger, it checks that the fingerprints merge no distinct states.
    func runComparingWholeForms(depth: Int) -> ExplorationReport {
        run(depth: depth, maxStates: .max, visited: Set<[UInt64]>()) { state in
            var form = CanonicalForm(keepingWords: true)
            model.canonicalize(state, into: &form)
            return form.kept ?? []
        }
    }

    private func run<Key: Hashable>(depth: Int, maxStates: Int, visited: Set<Key>, key: (Model.State) -> Key) -> ExplorationReport {
        let started = ContinuousClock.now
        var visited = visited
        // Parent pointers: the state a state was first reached from, and by which input index.
        var parents: [Int32] = [-1]
        var via: [UInt16] = [0]
        var frontier: [(state: Model.State, id: Int32)] = [(model.initialState(), 0)]
        visited.insert(key(frontier[0].state))
        var transitions = 0
        var statesByDepth = [1]
        var found: (Violation, String, Int)?

        level: for level in 1...max(1, depth) where depth > 0 {
            var next: [(state: Model.State, id: Int32)] = []
            var added = 0
            for (state, id) in frontier {
                let inputs = model.inputs(in: state)
                for (index, input) in inputs.enumerated() {
                    var successor = state
                    let violations = model.step(&successor, input)
                    transitions += 1
                    if let first = violations.first {
                        let path = self.path(to: id, parents: parents, via: via) + [index]
                        found = (first, model.script(replay(path)), level)
                        break level
                    }
                    guard visited.insert(key(successor)).inserted else { continue }
                    parents.append(id)
                    via.append(UInt16(index))
                    next.append((successor, Int32(parents.count - 1)))
                    added += 1
                    if visited.count >= maxStates { break }
                }
                if visited.count >= maxStates { break }
            }
            statesByDepth.append(added)
            frontier = next
            if frontier.isEmpty || visited.count >= maxStates { break }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return ExplorationReport(
            model: model.name, depth: depth, states: visited.count, transitions: transitions, statesByDepth: statesByDepth,
            seconds: seconds, violation: found.map { ($0.0, $0.1, $0.2) })
    }

    /// The input indices from the initial state to state `id`.
    private func path(to id: Int32, parents: [Int32], via: [UInt16]) -> [Int] {
        var indices: [Int] = []
        var current = id
        while current > 0 {
            indices.append(Int(via[Int(current)]))
            current = parents[Int(current)]
        }
        return indices.reversed()
    }

    /// The inputs behind a path of indices, found again by replaying it.
    public func replay(_ indices: [Int]) -> [Model.Input] {
        var state = model.initialState()
        var inputs: [Model.Input] = []
        for index in indices {
            let input = model.inputs(in: state)[index]
            inputs.append(input)
            _ = model.step(&state, input)
        }
        return inputs
    }

    private func fingerprint(_ state: Model.State) -> Fingerprint {
        var form = CanonicalForm()
        model.canonicalize(state, into: &form)
        return form.fingerprint
    }
}
