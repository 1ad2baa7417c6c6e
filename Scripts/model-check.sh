#!/usr/bin/env bash
# Scripts/model-check.sh [DEPTH] [--model NAME]...
#
# Builds the model checker (Tests/ModelCheck) in release mode, with testing enabled (it reads the
# machine's internal types) and cross-module optimization (the machine's generic code specialised
# for the model: twice the speed), in a scratch directory of its own (.build/model-check), then
# explores every model to DEPTH inputs, or each to its default depth (the CI run's). Prints, per
# model, the distinct states, transitions, depth, time, states per second and the new states at
# each depth; on a broken invariant, its name and the shortest input sequence that breaks it, as
# one line of script. Exits 1 on a violation.
#
# Deeper runs are soaks: `Scripts/model-check.sh 12 --model machine`.
set -euo pipefail
cd "$(dirname "$0")/.."

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
