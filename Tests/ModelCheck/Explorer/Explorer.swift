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
public protocol ExplorableModel: SendableMetatype {
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

extension ExplorableModel {
    /// Feeds `inputs` from the initial state and returns what the first step that broke an
    /// invariant broke; empty when every step kept them all.
    public func violations(replaying inputs: [Input]) -> [Violation] {
        var state = initialState()
        for input in inputs {
            let violations = step(&state, input)
            if !violations.isEmpty { return violations }
        }
        return []
    }

    /// A Swift Testing line that replays `inputs` on a fresh model and expects every invariant to
    /// hold, for `SessionKitModelCheckTests` (which imports this module with `@testable`): the
    /// counterexample of a bug, kept as the regression test of its fix.
    public func regressionTest(_ inputs: [Input]) -> String {
        let literals = inputs.map { "." + String(describing: $0).replacingOccurrences(of: "SessionKitModelCheck.", with: "") }
        return "#expect(\(Self.self)().violations(replaying: [\(literals.joined(separator: ", "))]).isEmpty)"
    }
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
    /// The threads that stepped states (one per core unless `MODEL_CHECK_THREADS` says otherwise).
    public var threads: Int
    /// The first broken invariant, at the smallest depth, with its input sequence as a script.
    public var violation: (violation: Violation, script: String, depth: Int, test: String)?

    /// Distinct states per second.
    public var statesPerSecond: Double { seconds > 0 ? Double(states) / seconds : 0 }

    public var description: String {
        var lines = [
            String(
                format: "%@: depth %d, %d states, %d transitions, %.2f s (%.0f states/s, %d threads)", model, depth, states, transitions,
                seconds, statesPerSecond, threads),
            "  new states by depth: " + statesByDepth.map(String.init).joined(separator: " "),
        ]
        if let (violation, script, depth, test) = violation {
            lines.append("  VIOLATION at depth \(depth) — \(violation)")
            lines.append("  regression test: \(test)")
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
    /// The threads that step states.
    public let threads: Int

    /// An explorer of `model` on `threads` threads (by default `MODEL_CHECK_THREADS`, or one per
    /// core). The thread count changes the speed, never the result.
    public init(_ model: Model, threads: Int? = nil) {
        self.model = model
        self.threads = max(1, threads ?? Self.defaultThreads)
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

    private func run<Key: Hashable & SendableMetatype>(depth: Int, maxStates: Int, visited: Set<Key>, key: (Model.State) -> Key)
        -> ExplorationReport
    {
        let started = ContinuousClock.now
        var visited = visited
        // Parent pointers: the state a state was first reached from, and by which input index.
        var parents: [Int32] = [-1]
        var via: [UInt16] = [0]
        var frontier: [(state: Model.State, id: Int32)] = [(model.initialState(), 0)]
        visited.insert(key(frontier[0].state))
        var transitions = 0
        var statesByDepth = [1]
        var found: (Violation, String, Int, String)?

        level: for level in 1...max(1, depth) where depth > 0 {
            var next: [(state: Model.State, id: Int32)] = []
            var added = 0
            // A batch of the frontier is stepped on every core, then merged here in frontier order
            // and input order: the same states, ids and first violation as one thread would find.
            var batchStart = frontier.startIndex
            while batchStart < frontier.endIndex {
                let batchEnd = min(batchStart + Self.batchSize, frontier.endIndex)
                // The visited set as it stands is read on every thread, so the many successors
                // already seen are dropped where they were made, not here on one thread.
                let expanded = expand(frontier[batchStart..<batchEnd], seen: visited, key: key)
                for (offset, successors) in expanded.enumerated() {
                    let id = frontier[batchStart + offset].id
                    transitions += successors.transitions
                    for successor in successors.fresh {
                        if let first = successor.violations.first {
                            let path = self.path(to: id, parents: parents, via: via) + [successor.input]
                            let inputs = replay(path)
                            found = (first, model.script(inputs), level, model.regressionTest(inputs))
                            break level
                        }
                        guard visited.insert(successor.key).inserted else { continue }
                        parents.append(id)
                        via.append(UInt16(successor.input))
                        next.append((successor.state, Int32(parents.count - 1)))
                        added += 1
                        if visited.count >= maxStates { break }
                    }
                    if visited.count >= maxStates { break }
                }
                if visited.count >= maxStates { break }
                batchStart = batchEnd
            }
            statesByDepth.append(added)
            frontier = next
            if frontier.isEmpty || visited.count >= maxStates { break }
        }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return ExplorationReport(
            model: model.name, depth: depth, states: visited.count, transitions: transitions, statesByDepth: statesByDepth,
            seconds: seconds, threads: threads, violation: found.map { ($0.0, $0.1, $0.2, $0.3) })
    }

    /// One step from a state: the input's index, the state it leads to, its key and what broke.
    private struct Successor<Key> {
        var input: Int
        var state: Model.State
        var key: Key
        var violations: [Violation]
    }

    /// The successors of one state: how many steps were taken, and those that may be new (or
    /// broke an invariant), in input order.
    private struct Successors<Key> {
        var transitions = 0
        var fresh: [Successor<Key>] = []
    }

    /// How many frontier states are stepped between two merges: enough to keep every core busy,
    /// few enough that their successors stay small next to the visited set.
    private static var batchSize: Int { 2048 }

    /// One thread per core, or `MODEL_CHECK_THREADS`.
    static var defaultThreads: Int {
        if let text = ProcessInfo.processInfo.environment["MODEL_CHECK_THREADS"], let value = Int(text), value > 0 { return value }
        return max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    /// Every successor of every state in `batch`, in the batch's order, less those already in
    /// `seen`. The model's step and canonical form are pure functions of a state value, so states
    /// are stepped on several threads at once; each thread writes only its own states' slots,
    /// and `seen` is only read while they run.
    private func expand<Key: Hashable & SendableMetatype>(
        _ batch: ArraySlice<(state: Model.State, id: Int32)>, seen: Set<Key>, key: (Model.State) -> Key
    ) -> [Successors<Key>] {
        var results = [Successors<Key>](repeating: Successors(), count: batch.count)
        if threads == 1 || batch.count < 2 {
            for (offset, element) in batch.enumerated() { results[offset] = successors(of: element.state, seen: seen, key: key) }
            return results
        }
        withoutActuallyEscaping(key) { key in
            results.withUnsafeMutableBufferPointer { slots in
                // Shared across the threads: the model (immutable), the batch and the visited set
                // (only read), the key function (pure) and the slots (each written by exactly one
                // iteration).
                let shared = SharedAcrossThreads((explorer: self, batch: batch, seen: seen, key: key, slots: slots))
                DispatchQueue.concurrentPerform(iterations: batch.count) { offset in
                    let work = shared.value
                    work.slots[offset] = work.explorer.successors(
                        of: work.batch[work.batch.startIndex + offset].state, seen: work.seen, key: work.key)
                }
            }
        }
        return results
    }

    private func successors<Key: Hashable & SendableMetatype>(of state: Model.State, seen: Set<Key>, key: (Model.State) -> Key)
        -> Successors<Key>
    {
        let inputs = model.inputs(in: state)
        var result = Successors<Key>()
        for (index, input) in inputs.enumerated() {
            var successor = state
            let violations = model.step(&successor, input)
            result.transitions += 1
            let successorKey = key(successor)
            if violations.isEmpty, seen.contains(successorKey) { continue }
            result.fresh.append(Successor(input: index, state: successor, key: successorKey, violations: violations))
            // Nothing after a broken invariant is explored: it is reported with the shortest path.
            if !violations.isEmpty { break }
        }
        return result
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

/// Values the explorer's threads share, which the compiler cannot prove safe to share: the model's
/// pure functions and state values, and result slots each written by one thread only.
private struct SharedAcrossThreads<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
