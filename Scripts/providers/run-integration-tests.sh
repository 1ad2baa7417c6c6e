#!/usr/bin/env bash
# Installs and starts the local OpenID providers, runs the IntegrationTests target against them,
# and stops the providers again, whatever happened. Extra arguments go to `swift test`.
#
#   Scripts/providers/run-integration-tests.sh [swift test options]
#
# Fails when the suites were skipped (missing provider variables) instead of passing silently.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
PROVIDERS="$SCRIPT_DIR/providers.sh"
LOG=$(mktemp)

cleanup() {
    rm -f "$LOG"
    bash "$PROVIDERS" stop
}
trap cleanup EXIT

bash "$PROVIDERS" start
eval "$(bash "$PROVIDERS" env)"

cd "$REPO_ROOT"
status=0
swift test --filter IntegrationTests "$@" 2>&1 | tee "$LOG" || status=$?
if grep -q "skipped:" "$LOG"; then
    echo "integration: suites were skipped although the providers run" >&2
    exit 1
fi
exit "$status"
