/// The stage diagrams, generated from the table: an overview of the seven stages and one diagram per
/// ``SessionConcern``, as Graphviz sources that `Scripts/diagrams.sh` renders to SVG.
///
/// A stage that an input leaves unchanged gets the input in its box ("stays on …") instead of a
/// self-loop, so no edge has to circle a box. Each source carries a digest of itself in its graph
/// `comment`, which Graphviz copies into the SVG, so a test can tell an SVG rendered from an older
/// source.
extension SessionTransitionTable {
    /// The file of the overview diagram, without its extension.
    package static let overviewDiagramName = "stages"

    /// The file of a concern's diagram, without its extension.
    package static func diagramName(of concern: SessionConcern) -> String {
        "stages-\(concern.rawValue)"
    }

    /// Every generated diagram file by name: the Mermaid table, the overview and one per concern.
    package static func diagramFiles() -> [(name: String, contents: String)] {
        [("stages.mmd", mermaid()), ("\(overviewDiagramName).dot", overviewDot())]
            + SessionConcern.allCases.map { ("\(diagramName(of: $0)).dot", dot(for: $0)) }
    }

    /// The seven stages and the moves between them, top to bottom as a session lives them: one
    /// arrow per pair of stages in the colours of its concerns, named by its first inputs (the
    /// concern diagrams name them all); staying in a stage is left to the concern diagrams.
    package static func overviewDot() -> String {
        let allMoves = moves(in: nil).filter { $0.from != $0.to }
        var body = header(name: overviewDiagramName, title: "The seven stages")
        body += nodes(SessionStage.allCases, moves: allMoves, stays: { _ in [] }, style: { stage in stageStyle(SessionConcern.of(stage)) })
        var pairs: [(from: SessionStage, to: SessionStage, concerns: [SessionConcern], inputs: [String])] = []
        for move in allMoves {
            if let index = pairs.firstIndex(where: { $0.from == move.from && $0.to == move.to }) {
                pairs[index].concerns.append(move.concern)
                pairs[index].inputs += move.inputs.filter { !pairs[index].inputs.contains($0) }
            } else {
                pairs.append((move.from, move.to, [move.concern], move.inputs))
            }
        }
        for pair in pairs {
            // The inputs that belong to the concern wherever they arrive name the arrow first.
            let inputs = pair.inputs.filter { !isShared($0) } + pair.inputs.filter(isShared)
            let shown = inputs.prefix(2).joined(separator: "\\n") + (inputs.count > 2 ? "\\n+\(inputs.count - 2) more" : "")
            let restoring = pair.concerns == [.restore]
            body.append(
                arrow(from: pair.from, to: pair.to, in: allMoves)
                    + "color=\"\(pair.concerns.map(colour(of:)).joined(separator: ":"))\", fontcolor=\"\(colour(of: pair.concerns[0]))\", "
                    + "label=\"\(shown)\"\(restoring ? ", style=dashed" : "")];")
        }
        body.append(legend())
        return finish(name: overviewDiagramName, body)
    }

    /// One concern's moves; stages outside the concern that its moves touch are drawn grey.
    package static func dot(for concern: SessionConcern) -> String {
        let name = diagramName(of: concern)
        let concernMoves = moves(in: concern)
        let arrows = concernMoves.filter { $0.from != $0.to }
        var body = header(name: name, title: concern.title)
        let stages = SessionStage.allCases.filter { stage in concernMoves.contains { $0.from == stage || $0.to == stage } }
        body += nodes(
            stages, moves: arrows,
            stays: { stage in concernMoves.filter { $0.from == stage && $0.to == stage }.flatMap(\.inputs) },
            style: { stage in
                SessionConcern.of(stage) == concern || concern == .restore || concern == .guest
                    ? stageStyle(concern) : "color=\"#9a9a9a\", fontcolor=\"#6a6a6a\""
            })
        for move in arrows {
            body.append(
                arrow(from: move.from, to: move.to, in: arrows)
                    + "color=\"\(colour(of: concern))\", label=\"\(move.inputs.joined(separator: "\\n"))\"];")
        }
        return finish(name: name, body)
    }

    /// The node a stage is drawn as. `signedOut` is drawn twice when it is both left and reached
    /// (once at the top as the start, once at the bottom, dashed, as the end), so the arrows back to
    /// it run down the page instead of across it.
    /// The start of an arrow's line, up to its first attribute. An arrow that runs back up the
    /// page (from an ending back to `active`, say) is written from its head with `dir=back`, so
    /// the layout keeps the stages in the order a session lives them.
    private static func arrow(from: SessionStage, to: SessionStage, in arrows: [Move]) -> String {
        let tail = nodeID(from, in: arrows, asTarget: false)
        let head = nodeID(to, in: arrows, asTarget: true)
        if order(of: head, in: arrows) < order(of: tail, in: arrows) {
            return "    \(head) -> \(tail) [dir=back, "
        }
        return "    \(tail) -> \(head) ["
    }

    /// A box's row in the order a session lives the stages: the start, at the provider, verified,
    /// fresh, ending, the end.
    private static func order(of node: String, in arrows: [Move]) -> Int {
        switch SessionStage(rawValue: node) {
        case .signedOut: arrows.contains { $0.from == .signedOut } ? 0 : 5
        case .handoff: 1
        case .verifying: 2
        case .active, .refreshing: 3
        case .revoking, .disconnecting: 4
        case nil: 5
        }
    }

    private static func nodeID(_ stage: SessionStage, in arrows: [Move], asTarget: Bool) -> String {
        guard stage == .signedOut, asTarget, arrows.contains(where: { $0.from == stage }), arrows.contains(where: { $0.to == stage })
        else { return stage.rawValue }
        return "\(stage.rawValue)_end"
    }

    /// Whether an input's concern depends on the stage it arrives in (a timer, a cancellation).
    private static func isShared(_ input: String) -> Bool {
        guard let input = SessionInput(rawValue: input) else { return false }
        return Set(SessionStage.allCases.map { SessionConcern.of(input, in: $0) }).count > 1
    }

    private static func stageStyle(_ concern: SessionConcern) -> String {
        "color=\"\(colour(of: concern))\""
    }

    /// The stages' boxes, each with what keeps it where it is, and the ranks: the start at the top,
    /// the end at the bottom.
    private static func nodes(
        _ stages: [SessionStage], moves arrows: [Move], stays: (SessionStage) -> [String], style: (SessionStage) -> String
    ) -> [String] {
        var lines: [String] = []
        for stage in stages {
            lines.append("    \(stage.rawValue) [label=<\(nodeLabel(stage, stays: stays(stage)))>, \(style(stage))];")
            let end = nodeID(stage, in: arrows, asTarget: true)
            if end != stage.rawValue {
                lines.append("    \(end) [label=<<b>\(stage.rawValue)</b>>, style=\"rounded,dashed\", \(style(stage))];")
                lines.append("    { rank=min; \(stage.rawValue); }")
                lines.append("    { rank=max; \(end); }")
            }
        }
        for column in [[SessionStage.active, .refreshing], [.revoking, .disconnecting]] where column.allSatisfy(stages.contains) {
            lines.append("    { rank=same; \(column.map(\.rawValue).joined(separator: "; ")); }")
        }
        return lines
    }

    /// The digest a diagram's source carries and its SVG repeats: FNV-1a, 64 bits, of the source
    /// without its digest line.
    package static func diagramDigest(of source: String) -> String {
        let text = source.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains(digestMarker) }
            .joined(separator: "\n")
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// What a diagram's SVG must contain to be the rendering of `source`.
    package static func diagramStamp(of source: String) -> String {
        "\(digestMarker)\(diagramDigest(of: source))"
    }

    private static let digestMarker = "stage diagram digest fnv1a64 "

    /// One arrow: the inputs of one concern that can move `from` to `to`, in table order.
    private struct Move {
        let from: SessionStage
        let to: SessionStage
        let concern: SessionConcern
        var inputs: [String]
    }

    /// The moves of the table, merged by (from, to, concern); `concern == nil` keeps every concern.
    private static func moves(in concern: SessionConcern?) -> [Move] {
        var moves: [Move] = []
        // A guest session's own outcomes belong to the guest concern, whatever the input.
        let all =
            rules.map { ($0.stage, $0.event, $0.outcome, SessionConcern.of($0.event, in: $0.stage)) }
            + guestRules.map { ($0.stage, $0.event, $0.outcome, SessionConcern.guest) }
        for (stage, event, outcome, ruleConcern) in all {
            let rule = (stage: stage, event: event)
            guard case .moves(let targets) = outcome, concern == nil || concern == ruleConcern else { continue }
            for target in targets {
                if let index = moves.firstIndex(where: { $0.from == rule.stage && $0.to == target && $0.concern == ruleConcern }) {
                    if !moves[index].inputs.contains(rule.event.rawValue) { moves[index].inputs.append(rule.event.rawValue) }
                } else {
                    moves.append(Move(from: rule.stage, to: target, concern: ruleConcern, inputs: [rule.event.rawValue]))
                }
            }
        }
        return moves
    }

    private static func header(name: String, title: String) -> [String] {
        [
            "// Generated from SessionTransitionTable; do not edit. Regenerate with Scripts/diagrams.sh.",
            "digraph \"\(name)\" {",
            "    graph [rankdir=TB, nodesep=0.6, ranksep=0.55, fontname=\"Helvetica\", fontsize=16, labelloc=t, label=\"\(title)\"];",
            "    node [shape=box, style=\"rounded\", fontname=\"Helvetica\", fontsize=13, penwidth=1.4, margin=\"0.15,0.06\"];",
            "    edge [fontname=\"Helvetica\", fontsize=10, penwidth=1.2, arrowsize=0.8];",
        ]
    }

    private static func nodeLabel(_ stage: SessionStage, stays: [String]) -> String {
        guard !stays.isEmpty else { return "<b>\(stage.rawValue)</b>" }
        var lines: [String] = []
        var line: [String] = []
        for input in stays {
            if line.count == 2 {
                lines.append(line.joined(separator: ", "))
                line = []
            }
            line.append(input)
        }
        lines.append(line.joined(separator: ", "))
        return "<b>\(stage.rawValue)</b><br/><font point-size=\"9\">stays on: "
            + lines.joined(separator: ",<br/>") + "</font>"
    }

    private static func legend() -> String {
        let rows = SessionConcern.allCases.map { concern in
            "<tr><td><font color=\"\(colour(of: concern))\">━━</font></td><td align=\"left\">\(concern.title)</td></tr>"
        }
        return "    legend [shape=plain, fontsize=10, label=<<table border=\"0\" cellspacing=\"2\">\(rows.joined())</table>>];"
    }

    private static func colour(of concern: SessionConcern) -> String {
        switch concern {
        case .signIn: "#1f6fb4"
        case .refresh: "#2a8a2a"
        case .ending: "#c0392b"
        case .restore: "#7d4fb0"
        case .guest: "#b8860b"
        }
    }

    private static func finish(name: String, _ body: [String]) -> String {
        var lines = body
        lines.append("}")
        let source = lines.joined(separator: "\n") + "\n"
        let stamp = "    graph [comment=\"\(diagramStamp(of: source))\"];"
        lines.insert(stamp, at: 2)
        return lines.joined(separator: "\n") + "\n"
    }
}
