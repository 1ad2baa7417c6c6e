#!/usr/bin/env bash
# Checks the public API against its baseline in Scripts/API (Scripts/api-check.py says how), or
# with --update rewrites the baseline. The test command runs the check.
set -euo pipefail
cd "$(dirname "$0")/.."
swift package dump-symbol-graph --minimum-access-level public >.build/api-symbol-graph.log 2>&1 || {
    cat .build/api-symbol-graph.log >&2
    echo "api: swift package dump-symbol-graph failed" >&2
    exit 1
}
graphs=$(sed -n 's/^Files written to //p' .build/api-symbol-graph.log | tail -n 1)
[[ -n "$graphs" && -d "$graphs" ]] || { echo "api: no symbol graphs were written" >&2; exit 1; }
exec python3 Scripts/api-check.py "$graphs" "$@"
