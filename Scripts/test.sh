#!/usr/bin/env bash
# Runs every SessionKit test on a fresh machine:
#   1. installs what the tests need (OpenSSL headers; the two real OpenID providers from PyPI),
#   2. starts the providers on 127.0.0.1,
#   3. builds and runs the suite with warnings as errors, then again under the thread sanitizer,
#   4. runs each fuzz target for a short time,
#   5. stops the providers (also on failure).
# Options: --no-tsan, --no-fuzz, --no-providers; FUZZ_SECONDS (default 20).
set -euo pipefail
cd "$(dirname "$0")/.."

tsan=1 fuzz=1 providers=1
for argument in "$@"; do
    case $argument in
        --no-tsan) tsan=0 ;;
        --no-fuzz) fuzz=0 ;;
        --no-providers) providers=0 ;;
        *) echo "usage: Scripts/test.sh [--no-tsan] [--no-fuzz] [--no-providers]" >&2; exit 2 ;;
    esac
done

step() { printf '\n==> %s (%s)\n' "$*" "$(date -u +%H:%M:%S)"; }

step "system packages"
if ! pkg-config --exists openssl 2>/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && apt-get install -y -qq libssl-dev pkg-config
    else
        echo "libssl-dev is missing: sudo apt-get install libssl-dev pkg-config" >&2
        exit 1
    fi
fi

if [ "$providers" = 1 ]; then
    step "real OpenID providers"
    trap 'Scripts/providers/providers.sh stop || true' EXIT
    Scripts/providers/providers.sh start
    eval "$(Scripts/providers/providers.sh env)"
fi

mkdir -p .build
# Runs `swift test` with the given flags, shows its output without the build progress lines, and
# fails when it failed. Under the thread sanitizer a race makes the exit code non-zero even when
# every test reports "passed", so the exit code is what counts.
run_tests() {
    local log=$1 status
    shift
    set +e
    swift test "$@" > "$log" 2>&1
    status=$?
    set -e
    grep -vE '^\[[0-9]+/[0-9]+\] |^Compiling |^Building | started\.$' "$log" || true
    if [ "$status" != 0 ]; then
        # Sanitizer reports are long and land mid-log; repeat them last so they are seen.
        if grep -q 'WARNING: ThreadSanitizer' "$log"; then
            echo "--- thread sanitizer reports, repeated from $log ---" >&2
            awk '/^WARNING: ThreadSanitizer/ {show = 1} show {print} /^SUMMARY: ThreadSanitizer/ {show = 0; print ""}' "$log" >&2
        fi
        echo "swift test $* failed with exit code $status" >&2
        exit 1
    fi
}

step "swift test (warnings as errors)"
run_tests .build/test-output.txt -Xswiftc -warnings-as-errors
if [ "$providers" = 1 ]; then
    # The integration suites skip themselves without providers; here they must have run.
    for suite in DjangoOAuthToolkitTests OIDCProviderMockTests; do
        grep -q "Suite $suite passed" .build/test-output.txt || { echo "integration suite $suite did not run" >&2; exit 1; }
    done
fi

if [ "$tsan" = 1 ]; then
    step "swift test under the thread sanitizer"
    run_tests .build/test-tsan-output.txt --sanitize=thread --scratch-path .build/tsan
fi

if [ "$fuzz" = 1 ] && [ -x Fuzz/run.sh ]; then
    step "fuzzing, ${FUZZ_SECONDS:-20} s per target"
    Fuzz/run.sh "${FUZZ_SECONDS:-20}"
fi

step "walkthrough is deterministic"
swift build --product walkthrough >/dev/null
.build/debug/walkthrough > .build/walkthrough-1.txt
.build/debug/walkthrough > .build/walkthrough-2.txt
cmp .build/walkthrough-1.txt .build/walkthrough-2.txt
echo "walkthrough output identical across runs ($(wc -l < .build/walkthrough-1.txt) lines)"

step "done"
