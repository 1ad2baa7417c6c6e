#!/usr/bin/env python3
"""The public API baseline: every public declaration of each library module, one line each.

    api-check.py GRAPHS          compare the symbol graphs in GRAPHS with Scripts/API/*.txt
    api-check.py GRAPHS --update write the baseline from them

A line is the declaration's kind, its path and its declaration as the compiler prints it, so a
changed signature is one line removed and one added. The check fails when the baseline differs
from the code. Updating refuses while a removed or changed declaration is not named (by its path,
`Type.member`, its last component or its enclosing type in backticks) in the Unreleased section of CHANGELOG.md:
nothing public disappears or changes without the changelog saying so.
"""
import json
import pathlib
import re
import sys

MODULES = ["SessionKitCore", "SessionKit", "SessionKitJOSE", "SessionKitHandoffs", "SessionKitSecretService", "SessionKitTesting"]
ROOT = pathlib.Path(__file__).resolve().parent.parent
BASELINE = ROOT / "Scripts" / "API"


def declarations(graphs: pathlib.Path, module: str) -> list[str]:
    files = [graphs / f"{module}.symbols.json", *sorted(graphs.glob(f"{module}@*.symbols.json"))]
    lines = set()
    for path in files:
        if not path.exists():
            continue
        extended = path.stem.split("@")[1].split(".")[0] if "@" in path.stem else None
        for symbol in json.loads(path.read_text())["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                continue  # members a protocol supplies, not declarations of this module
            declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
            declaration = re.sub(r"\s+", " ", declaration).strip()
            path_text = ".".join(symbol["pathComponents"])
            if extended:
                path_text = f"{extended}:{path_text}"
            lines.add(f"{symbol['kind']['identifier']} {path_text} | {declaration}")
    return sorted(lines)


def unreleased_changelog() -> str:
    text = (ROOT / "CHANGELOG.md").read_text()
    match = re.search(r"^## \[Unreleased\]\n(.*?)(?=^## \[)", text, re.S | re.M)
    return match.group(1) if match else text


def named_in(changelog: str, line: str) -> bool:
    path = line.split(" ", 1)[1].split(" | ", 1)[0].split(":")[-1]
    components = path.split(".")
    last = re.sub(r"\(.*", "", components[-1])
    candidates = {path, ".".join(components[-2:]), f"`{last}`", f"`{components[-1]}`"}
    if len(components) > 1:
        owner = re.sub(r"\(.*", "", components[-2])
        candidates.add(f"{owner}.{last}")
    # A type named as a whole (`SessionInput`) covers its members.
    for index in range(1, len(components)):
        candidates.add("`" + ".".join(components[:index]) + "`")
    return any(candidate in changelog for candidate in candidates)


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    graphs = pathlib.Path(sys.argv[1])
    update = "--update" in sys.argv[2:]
    changelog = unreleased_changelog()
    failed = False
    counts = []
    for module in MODULES:
        current = declarations(graphs, module)
        if not current:
            print(f"api: no symbol graph for {module} in {graphs}", file=sys.stderr)
            return 1
        counts.append(f"{module} {len(current)}")
        baseline_file = BASELINE / f"{module}.txt"
        baseline = baseline_file.read_text().splitlines() if baseline_file.exists() else []
        removed = sorted(set(baseline) - set(current))
        added = sorted(set(current) - set(baseline))
        unnamed = [line for line in removed if not named_in(changelog, line)]
        if update:
            if unnamed:
                failed = True
                print(f"api: {module}: removed or changed without a CHANGELOG entry:", file=sys.stderr)
                for line in unnamed:
                    print(f"  - {line}", file=sys.stderr)
                continue
            BASELINE.mkdir(parents=True, exist_ok=True)
            baseline_file.write_text("\n".join(current) + "\n")
        elif removed or added:
            failed = True
            print(f"api: {module} differs from Scripts/API/{module}.txt:", file=sys.stderr)
            for line in removed:
                mark = "" if named_in(changelog, line) else "   (not named in CHANGELOG.md)"
                print(f"  - {line}{mark}", file=sys.stderr)
            for line in added:
                print(f"  + {line}", file=sys.stderr)
    print("api: public declarations: " + ", ".join(counts))
    if failed:
        if update:
            print("api: name each removed or changed declaration in CHANGELOG.md (Unreleased), then update again", file=sys.stderr)
        else:
            print("api: run Scripts/api.sh --update (it asks for a CHANGELOG entry for each removal or change)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
