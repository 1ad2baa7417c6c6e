#!/usr/bin/env bash
# Scripts/model-check.sh [--debug] [DEPTH] [--model NAME]...
#
# Explores every model of Tests/ModelCheck to DEPTH inputs, or each to its default depth (the CI
# run's), and prints, per model, the distinct states, transitions, depth, time, states per second
# and the new states at each depth; on a broken invariant, its name and the shortest input
# sequence that breaks it, as one line of script. Exits 1 on a violation.
#
# By default it builds the model checker in release mode, with testing enabled (it reads the
# machine's internal types) and cross-module optimization (the machine's generic code specialised
# for the model), in a scratch directory of its own (.build/model-check): a build of its own that
# costs minutes, then about twice the speed of a debug build. `--debug` reuses the debug build
# that `swift test` made (the test command's choice: seconds to build, the default depths); the
# model checker's own module is optimised even there, and states are stepped on every core
# (MODEL_CHECK_THREADS=N to choose; the result never depends on it).
#
# Deeper runs are soaks: `Scripts/model-check.sh 12 --model machine` (about 1.4 million states).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = --debug ]; then
    shift
    swift build --product model-check -Xswiftc -warnings-as-errors > .build/model-check-build.log 2>&1 \
        || { cat .build/model-check-build.log >&2; echo "the model checker did not build" >&2; exit 1; }
    exec .build/debug/model-check "$@"
fi

scratch=${MODEL_CHECK_SCRATCH:-.build/model-check}
mkdir -p "$scratch"
started=$(date +%s)
if ! swift build -c release --product model-check --scratch-path "$scratch" \
    -Xswiftc -enable-testing -Xswiftc -cross-module-optimization -Xswiftc -warnings-as-errors > "$scratch/model-check-build.log" 2>&1; then
    cat "$scratch/model-check-build.log" >&2
    echo "the model checker did not build" >&2
    exit 1
fi
echo "model checker built in $(($(date +%s) - started)) s (release, cross-module optimization, $scratch)"
exec "$scratch/release/model-check" "$@"
