#!/usr/bin/env bash
# A longer run of the session crash test: SessionKitCrashTool children on one file store are
# killed with SIGKILL at seeded random moments, and a fresh checker must recover every time.
#
#   Scripts/crash-soak.sh [KILLS] [SEED]     (default 2000 kills, the test's default seed)
#
# Extra options for `swift test` can follow in SWIFT_TEST_OPTIONS (e.g. "--sanitize=thread").
# The test prints one line with the counts: kills, recoveries, losses, child crashes, rotation-window
# hits. A child that crashes by itself (a signal the test did not send) fails the run with the
# backtrace the Swift runtime printed on the child's standard error; a failed run keeps its full
# output in .build/crash-soak-SEED-KILLS.log.
set -euo pipefail
cd "$(dirname "$0")/.."

kills=${1:-2000}
[[ $kills =~ ^[0-9]+$ ]] || { echo "usage: Scripts/crash-soak.sh [KILLS] [SEED]" >&2; exit 2; }
export SESSIONKIT_CRASH_KILLS=$kills
if [[ $# -ge 2 ]]; then
    [[ $2 =~ ^[0-9]+$ ]] || { echo "usage: Scripts/crash-soak.sh [KILLS] [SEED]" >&2; exit 2; }
    export SESSIONKIT_CRASH_SEED=$2
fi

# A crash of the test process itself prints no register or memory contents either.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=yes,interactive=no,color=no,registers=none,images=none,sanitize=yes}

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# shellcheck disable=SC2086
swift test --filter 'SessionCrashTests/killedAtRandomMoments' ${SWIFT_TEST_OPTIONS:-} >"$log" 2>&1 || status=$?
grep -E '^crash test:|passed|failed|issue|round [0-9]+:' "$log" | grep -vE '^\[[0-9]+/[0-9]+\]' || true
if [[ $status != 0 ]]; then
    kept=.build/crash-soak-${SESSIONKIT_CRASH_SEED:-default}-$kills.log
    mkdir -p .build && cp "$log" "$kept"
    echo "crash soak failed (swift test exit code $status); full output in $kept, its end:" >&2
    tail -50 "$log" >&2
fi
exit "$status"
