#!/usr/bin/env python3
"""The manifest's swift-tools-version covers every language feature the package's code uses.

    tools-version.py [ROOT]      check the package at ROOT (default: this repository)

An app that adds the package on an older toolchain should get SwiftPM's "requires a newer
tools version", not compile errors deep inside the package. So every Swift file of the package
(its targets, tests, examples, benchmarks, snippet tools and fuzz targets: everything under ROOT
but hidden and build directories) is read with its comments and string literals blanked out,
and matched against FEATURES: what first shipped after Swift 6.0, with the release that
shipped it (the Swift Evolution and Swift Testing proposals' "Implemented (Swift X)" status).
A use of a feature newer than the declared tools version fails the check, with its place.

The table lists what can be seen in the text; it does not prove that the declared toolchain
builds the package (only that toolchain can), but it catches the common way the manifest falls
behind: adopting a new feature in a source file. A feature adopted that is not in the table
belongs in it.
"""
import pathlib
import re
import sys
from typing import NamedTuple

ROOT = pathlib.Path(__file__).resolve().parent.parent


class Feature(NamedTuple):
    name: str
    proposal: str
    version: tuple[int, ...]
    pattern: str
    # "code": matched with comments and string literals blanked; "text": with comments blanked
    # only (for what lives inside string literals, such as interpolations).
    scope: str
    # A line that uses the feature; the self-test checks the pattern finds it.
    example: str


def version(text: str) -> tuple[int, ...]:
    parts = tuple(int(part) for part in text.split("."))
    return parts + (0,) * (3 - len(parts))


def spelled(parts: tuple[int, ...]) -> str:
    trimmed = list(parts)
    while len(trimmed) > 2 and trimmed[-1] == 0:
        trimmed.pop()
    return ".".join(str(part) for part in trimmed)


FEATURES = [
    # Swift 6.1
    Feature("trailing comma in a parenthesized list", "SE-0439", version("6.1"), r",\s*\)", "code", "call(a, b,\n)"),
    Feature(
        "nonisolated on a type or extension", "SE-0449", version("6.1"),
        r"\bnonisolated\s+(?:(?:public|package|internal|fileprivate|private|final)\s+)*(?:struct|class|enum|actor|protocol|extension)\b",
        "code", "nonisolated struct S {}"),
    Feature(
        "task group without the child result type", "SE-0442", version("6.1"),
        r"\bwith(?:Throwing)?TaskGroup\s*(?:\{|\((?!\s*of\s*:))", "code", "await withTaskGroup { group in }"),
    Feature(
        "the error returned by #expect(throws:) or #require(throws:)", "ST-0006", version("6.1"),
        r"(?:=|\breturn)\s*(?:try\s+)?(?:await\s+)?#(?:expect|require)\(\s*throws\s*:", "code",
        "let error = #expect(throws: E.self) { try f() }"),
    Feature("ranged confirmation counts", "ST-0005", version("6.1"), r"\bexpectedCount\s*:\s*[\w.]*\.\.[.<]", "code",
            "await confirmation(expectedCount: 1...) { _ in }"),
    Feature("test scoping traits", "ST-0007", version("6.1"), r"\b(?:TestScoping|provideScope)\b", "code",
            "struct T: TestTrait, TestScoping {}"),
    # Swift 6.2
    Feature(
        "immediate tasks (Task.immediate, addImmediateTask)", "SE-0472", version("6.2"),
        r"\bTask\s*\.\s*immediate(?:Detached)?\b|\baddImmediateTask(?:UnlessCancelled)?\b", "code",
        "Task.immediate { await work() }"),
    Feature("@concurrent and nonisolated(nonsending)", "SE-0461", version("6.2"), r"@concurrent\b|\bnonisolated\s*\(\s*nonsending\s*\)",
            "code", "@concurrent func f() async {}"),
    Feature("InlineArray and its [N of T] sugar", "SE-0453, SE-0483", version("6.2"), r"\bInlineArray\b|\[\s*\d+\s+of\s+\w", "code",
            "let a: [4 of Int] = [1, 2, 3, 4]"),
    Feature(
        "Span and its relatives", "SE-0447, SE-0456, SE-0464, SE-0467, SE-0485", version("6.2"),
        r"\b(?:Raw|MutableRaw|Mutable|Output|OutputRaw|UTF8)?Span\b|\.(?:span|mutableSpan|utf8Span)\b|~Escapable\b", "code",
        "let s: RawSpan = bytes.span.bytes"),
    Feature("isolated deinit", "SE-0371", version("6.2"), r"\bisolated\s+deinit\b", "code", "isolated deinit {}"),
    Feature("@abi", "SE-0476", version("6.2"), r"@abi\s*\(", "code", "@abi(func f()) func g() {}"),
    Feature("Observations", "SE-0475", version("6.2"), r"\bObservations\s*[({]", "code", "let values = Observations { model.count }"),
    Feature("a default value in a string interpolation", "SE-0477", version("6.2"), r"\\\([^()\n]*,\s*default\s*:", "text",
            'print("\\(name, default: "none")")'),
    Feature("raw identifiers", "SE-0451", version("6.2"), r"`[^`\n]*[^\w`\n][^`\n]*`", "code", "@Test func `a test`() {}"),
    Feature("integer generic parameters", "SE-0452", version("6.2"), r"<\s*let\s+\w+\s*:", "code", "struct V<let N: Int> {}"),
    Feature(
        "task names", "SE-0469", version("6.2"),
        r"\b(?:Task|Task\s*\.\s*detached|addTask|addTaskUnlessCancelled)\s*\(\s*name\s*:|\bTask\s*\.\s*name\b", "code",
        'Task(name: "refresh") { await work() }'),
    Feature(
        "isolated conformances", "SE-0470", version("6.2"),
        r"\b(?:extension|struct|class|enum|actor)\b[^{\n]*[:,]\s*@\w*Actor\s+\w", "code", "extension Model: @MainActor Equatable {}"),
    Feature("@safe and @unsafe", "SE-0458", version("6.2"), r"@(?:un)?safe\b", "code", "@unsafe func f() {}"),
    Feature(
        "task priority escalation", "SE-0462", version("6.2"), r"\b(?:withTaskPriorityEscalationHandler|escalatePriority)\b", "code",
        "Task.escalatePriority(task, to: .high)"),
    # `Duration.attoseconds` reads like the old `components.attoseconds`; only the initializer is told apart.
    Feature("Duration(attoseconds:)", "SE-0457", version("6.2"), r"\bDuration\s*\(\s*attoseconds\s*:", "code",
            "let d = Duration(attoseconds: 1)"),
    Feature("exit tests", "ST-0008", version("6.2"), r"\bprocessExitsWith\s*:", "code",
            "await #expect(processExitsWith: .success) { f() }"),
    Feature("test attachments", "ST-0009", version("6.2"), r"\bAttachment\s*\.\s*record\b|(?<![\w.])Attachment\s*\(", "code",
            'Attachment.record(data, named: "log")'),
    Feature("issue handling traits", "ST-0011", version("6.2"), r"\.(?:compactMapIssues|filterIssues)\b", "code",
            "@Test(.filterIssues { _ in true }) func t() {}"),
    # Swift 6.2.3
    Feature("@nonexhaustive enums", "SE-0487", version("6.2.3"), r"@nonexhaustive\b", "code", "@nonexhaustive public enum E { case a }"),
    # Swift 6.3
    Feature("weak let", "SE-0481", version("6.3"), r"\bweak\s+let\b", "code", "weak let delegate: D?"),
    Feature("@specialized", "SE-0460", version("6.3"), r"@specialized\s*\(", "code", "@specialized(where T == Int) func f<T>(_: T) {}"),
    Feature("clock epochs", "SE-0473", version("6.3"), r"\.systemEpoch\b", "code", "let epoch = clock.systemEpoch"),
    Feature("module selectors", "SE-0491", version("6.3"), r"\b[A-Za-z_]\w*::[A-Za-z_]", "code", "let x = Swift::print"),
    Feature("@section and @used", "SE-0492", version("6.3"), r"@section\s*\(|@used\b", "code", '@section("__DATA,x") let x = 1'),
    Feature("@c", "SE-0495", version("6.3"), r"@c\b", "code", "@c func f() {}"),
    Feature("@inline(always)", "SE-0496", version("6.3"), r"@inline\s*\(\s*always\s*\)", "code", "@inline(always) func f() {}"),
    Feature("@export", "SE-0497", version("6.3"), r"@export\s*\(", "code", "@export(implementation) public func f() {}"),
    Feature("values captured by an exit test", "ST-0012", version("6.3"), r"\bprocessExitsWith\s*:[^{]*\{\s*\[", "code",
            "await #expect(processExitsWith: .failure) { [value] in use(value) }"),
    Feature("issue severity", "ST-0013", version("6.3"), r"\bIssue\s*\.\s*record\s*\([^)]*\bseverity\s*:", "code",
            'Issue.record("slow", severity: .warning)'),
    Feature("test cancellation", "ST-0016", version("6.3"), r"\bTest\s*\.\s*cancel\s*\(", "code", "try Test.cancel()"),
]

TOOLS_VERSION = re.compile(r"^//\s*swift-tools-version\s*:\s*(\d+(?:\.\d+){0,2})\s*(?:;.*)?$")


def declared_version(manifest: pathlib.Path) -> tuple[int, ...]:
    first = manifest.read_text().splitlines()[0] if manifest.exists() else ""
    match = TOOLS_VERSION.match(first)
    if not match:
        raise ValueError(f"{manifest}: the first line does not declare a swift-tools-version")
    return version(match.group(1))


CODE_TOKEN = re.compile(r'//|/\*|#*"')
INTERPOLATION_TOKEN = re.compile(r'//|/\*|#*"|[()]')
STRING_STOP = re.compile(r'["\\\n]')


def blank(text: str, keep_strings: bool) -> str:
    """`text` with comments (and string literals, unless kept) replaced by spaces, newlines kept.

    A small lexer: line and nested block comments, string literals (raw, multi-line,
    escapes) and the code of their interpolations, which may hold strings again."""
    out: list[str] = []
    n = len(text)

    def emit(start: int, end: int, keep: bool) -> None:
        chunk = text[start:end]
        out.append(chunk if keep else re.sub(r"[^\n]", " ", chunk))

    def emit_string(start: int, end: int) -> None:
        # A blanked literal leaves a placeholder, so `f("a", "b")` does not read as `f(  ,  )`.
        if keep_strings or start == end:
            emit(start, end, keep_strings)
        else:
            out.append("0")
            emit(start + 1, end, False)

    def code(i: int, interpolation: bool) -> int:
        # Returns the index after the code; in an interpolation, the index of its closing `)`.
        depth = 0
        while i < n:
            match = (INTERPOLATION_TOKEN if interpolation else CODE_TOKEN).search(text, i)
            if not match:
                emit(i, n, True)
                return n
            emit(i, match.start(), True)
            token, i = match.group(), match.start()
            if token == "//":
                end = text.find("\n", i)
                end = n if end < 0 else end
                emit(i, end, False)
                i = end
            elif token == "/*":
                nesting, j = 1, i + 2
                while j < n and nesting:
                    if text.startswith("/*", j):
                        nesting, j = nesting + 1, j + 2
                    elif text.startswith("*/", j):
                        nesting, j = nesting - 1, j + 2
                    else:
                        j += 1
                emit(i, j, False)
                i = j
            elif token == "(":
                depth += 1
                emit(i, i + 1, True)
                i += 1
            elif token == ")":
                if interpolation and depth == 0:
                    return i
                depth -= 1
                emit(i, i + 1, True)
                i += 1
            else:
                i = string(i, len(token) - 1)
        return i

    def string(i: int, hashes: int) -> int:
        start = i + hashes
        multiline = text.startswith('"""', start)
        quote = '"""' if multiline else '"'
        close = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        j = start + len(quote)
        emit_string(i, j)
        while j < n:
            if text.startswith(close, j):
                emit(j, j + len(close), keep_strings)
                return j + len(close)
            if text.startswith(escape + "(", j):
                opening = j + len(escape) + 1
                emit(j, opening, keep_strings)
                j = code(opening, interpolation=True)
                continue
            if text.startswith(escape, j):
                emit(j, min(n, j + len(escape) + 1), keep_strings)
                j += len(escape) + 1
                continue
            if text[j] == "\n" and not multiline:
                return j
            # Up to the next character that could end the literal or start an escape.
            stop = STRING_STOP.search(text, j + 1)
            end = stop.start() if stop else n
            emit(j, end, keep_strings)
            j = end
        return j

    code(0, interpolation=False)
    return "".join(out)


COMPILED: dict[str, re.Pattern[str]] = {}


def uses(text: str, features: list[Feature] = FEATURES) -> list[tuple[int, Feature]]:
    """Every (line, feature) found in Swift source `text`."""
    scopes = {"code": blank(text, keep_strings=False), "text": blank(text, keep_strings=True)}
    found = []
    for feature in features:
        for match in COMPILED.setdefault(feature.pattern, re.compile(feature.pattern)).finditer(scopes[feature.scope]):
            found.append((scopes[feature.scope].count("\n", 0, match.start()) + 1, feature))
    return found


def swift_files(root: pathlib.Path) -> list[pathlib.Path]:
    files = []
    for path in sorted(root.rglob("*.swift")):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts[:-1]) or relative == pathlib.Path("Package.swift"):
            continue
        files.append(path)
    return files


def check(root: pathlib.Path) -> int:
    try:
        declared = declared_version(root / "Package.swift")
    except ValueError as error:
        print(f"tools-version: {error}", file=sys.stderr)
        return 2
    newest: tuple[tuple[int, ...], Feature] | None = None
    too_new = []
    for path in swift_files(root):
        for line, feature in uses(path.read_text(errors="replace")):
            if newest is None or feature.version > newest[0]:
                newest = (feature.version, feature)
            if feature.version > declared:
                too_new.append((path.relative_to(root), line, feature))
    for path, line, feature in too_new:
        print(
            f"{path}:{line}: {feature.name} ({feature.proposal}) needs Swift {spelled(feature.version)}; "
            f"Package.swift declares swift-tools-version {spelled(declared)}",
            file=sys.stderr)
    if too_new:
        print(f"tools-version: {len(too_new)} uses of features newer than the declared tools version", file=sys.stderr)
        return 1
    if newest:
        print(
            f"swift-tools-version {spelled(declared)} covers every feature in the table; the newest used is "
            f"{newest[1].name} ({newest[1].proposal}, Swift {spelled(newest[0])})")
    else:
        print(f"swift-tools-version {spelled(declared)}: no feature in the table is used")
    return 0


if __name__ == "__main__":
    if len(sys.argv) > 2:
        print("usage: tools-version.py [ROOT]", file=sys.stderr)
        sys.exit(2)
    sys.exit(check(pathlib.Path(sys.argv[1]).resolve() if len(sys.argv) == 2 else ROOT))
