#!/usr/bin/env bash
# Runs every SessionKit test on a fresh machine:
#   0. checks that the manifest's swift-tools-version covers every language feature the sources use
#      (Scripts/tools-version.py, with its own tests first),
#   1. installs what the tests need (OpenSSL headers, libsecret, gnome-keyring, D-Bus, Chromium; the three
#      real OpenID providers from PyPI),
#   2. starts the providers on 127.0.0.1,
#   3. builds and runs the suite with warnings as errors, then again under the thread sanitizer,
#      each inside a D-Bus session of its own with an unlocked gnome-keyring (the Secret Service
#      store's tests), then the default store's headless fallback outside any D-Bus session;
#      the build compiles every Swift snippet of the README and the DocC articles (SnippetTests);
#      the debug build runs while the providers start (not the sanitizer's beside the browser:
#      measured, the pages then took 446 s instead of 183 s and the two steps 98 s longer),
#   4. explores every input sequence of the session machine, its procedures, the handoff machines
#      and a model of the shell to a depth, against the design's invariants (Scripts/model-check.sh),
#      checks the public API against its baseline (Scripts/api.sh), builds the DocC
#      documentation (Scripts/docs.sh) and fails on any warning, then opens every
#      page in headless Chromium and fails on a page, image or link that does not load,
#   5. runs each fuzz target for a short time,
#   6. stops the providers (also on failure).
# Options: --no-tsan, --no-fuzz, --no-providers; FUZZ_SECONDS (default 3).
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

# A crash of a test process prints its backtrace without register or memory contents, which could
# hold a token (the tests' child processes set the same for themselves).
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=yes,interactive=no,color=no,registers=none,images=none,sanitize=yes}

mkdir -p .build
step "swift-tools-version covers the language features the sources use"
# Seconds: the checker's own tests on small packages, then the package against its manifest.
python3 Scripts/tools-version-test.py > .build/tools-version-test.txt 2>&1 \
    || { cat .build/tools-version-test.txt >&2; echo "the tools-version checker's tests failed" >&2; exit 1; }
tail -n 1 .build/tools-version-test.txt
python3 Scripts/tools-version.py

step "system packages"
if ! pkg-config --exists openssl 2>/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && apt-get install -y -qq libssl-dev pkg-config
    else
        echo "libssl-dev is missing: sudo apt-get install libssl-dev pkg-config" >&2
        exit 1
    fi
fi

# libsecret is loaded at run time (no headers needed to build); the keyring tests need the daemon.
if ! ldconfig -p 2>/dev/null | grep -q 'libsecret-1\.so\.0' || ! command -v gnome-keyring-daemon >/dev/null \
    || ! command -v dbus-run-session >/dev/null || ! command -v secret-tool >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gnome-keyring libsecret-1-0 libsecret-tools dbus
    else
        echo "the keyring packages are missing: sudo apt-get install gnome-keyring libsecret-1-0 libsecret-tools dbus" >&2
        exit 1
    fi
fi

# The documentation is checked in a headless browser (Scripts/docs.sh).
if ! command -v chromium >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium
    else
        echo "Chromium is missing: sudo apt-get install chromium" >&2
        exit 1
    fi
fi

mkdir -p .build
# A D-Bus session bus and a gnome-keyring-daemon of their own for the command given, with a fresh
# login keyring unlocked by a throwaway password, and runtime and data directories of their own,
# so neither a desktop's keyring nor an earlier run's is touched.
keyring_home=$(mktemp -d)
cleanup() {
    # Builds started in the background end with the run.
    for pid in ${background_builds:-}; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$keyring_home"
    if [ "${providers_started:-0}" = 1 ]; then Scripts/providers/providers.sh stop || true; fi
}
trap cleanup EXIT
in_keyring_session() {
    mkdir -p "$keyring_home/runtime" "$keyring_home/data"
    chmod 700 "$keyring_home/runtime"
    XDG_RUNTIME_DIR="$keyring_home/runtime" XDG_DATA_HOME="$keyring_home/data" dbus-run-session -- sh -c \
        'printf %s sessionkit-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' sh "$@"
}

# Builds `swift build ARGS...` in the background, its output in LOG; `wait_for_build LOG` waits
# for it and fails the run with its output when it failed. The build is the one `swift test` with
# the same flags makes, so the test run that follows builds nothing.
start_build() {
    local log=$1
    shift
    swift build --build-tests "$@" > "$log" 2>&1 &
    background_builds="${background_builds:-} $!"
    eval "build_pid_${log//[^a-z]/_}=$!"
}
wait_for_build() {
    local log=$1 pid_name="build_pid_${1//[^a-z]/_}"
    wait "${!pid_name}" || { grep -vE '^\[[0-9]+/[0-9]+\] ' "$log" | tail -80 >&2; echo "the build failed (log: $log)" >&2; exit 1; }
    tail -n 1 "$log"
}

# The debug build starts now and runs while the providers install and start and lint runs: those
# wait on the network and on Python more than on the cores.
step "build with warnings as errors (in the background)"
start_build .build/build-output.txt -Xswiftc -warnings-as-errors

if [ "$providers" = 1 ]; then
    step "real OpenID providers"
    providers_started=1
    Scripts/providers/providers.sh start
    eval "$(Scripts/providers/providers.sh env)"
fi

# Runs `swift test` with the given flags, shows its output without the build progress lines, and
# fails when it failed. Under the thread sanitizer a race makes the exit code non-zero even when
# every test reports "passed", so the exit code is what counts.
run_tests() {
    local log=$1 status
    shift
    set +e
    in_keyring_session swift test "$@" > "$log" 2>&1
    status=$?
    set -e
    grep -vE '^\[[0-9]+/[0-9]+\] |^Compiling |^Building | started\.$|Failed to set fd limit' "$log" || true
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

step "swift format lint --strict"
# The checked-in .swift-format is the style; any finding fails the run.
lint_output=$(find Sources Tests Examples Benchmarks Fuzz Scripts -name '*.swift' -print0 | xargs -0 swift format lint --strict 2>&1 || true)
if [ -n "$lint_output" ]; then
    printf '%s\n' "$lint_output" >&2
    echo "swift format lint --strict reported $(printf '%s\n' "$lint_output" | grep -cE 'warning|error') findings" >&2
    exit 1
fi
echo "no findings"

step "swift test (warnings as errors)"
wait_for_build .build/build-output.txt
run_tests .build/test-output.txt -Xswiftc -warnings-as-errors
if [ "$providers" = 1 ]; then
    # The integration suites skip themselves without providers; here they must have run.
    for suite in DjangoOAuthToolkitTests OIDCProviderMockTests OIDCProviderMockSessionOpenIDConnectTests IDPyOIDCTests IDPyOIDCRegistrationTests; do
        grep -q "Suite $suite passed" .build/test-output.txt || { echo "integration suite $suite did not run" >&2; exit 1; }
    done
fi
# The keyring suites skip themselves without a Secret Service; here they must have run.
for suite in SecretServiceCredentialStoreTests PlatformStoreKeyringTests; do
    grep -q "Suite $suite passed" .build/test-output.txt \
        || { echo "the keyring suite $suite did not run against gnome-keyring-daemon" >&2; exit 1; }
done
# The documented command lines, run as child processes.
grep -q "Suite CommandLineTests passed" .build/test-output.txt \
    || { echo "the command-line suite CommandLineTests did not run" >&2; exit 1; }

# The documentation's snippets are compiled by the build above; here they must have run.
grep -q 'Test "README.md:[0-9]* runs as written" passed' .build/test-output.txt \
    || { echo "the README's runnable snippet did not run (SnippetTests)" >&2; exit 1; }
echo "documentation snippets: $(grep -c 'runs as written" passed' .build/test-output.txt) ran as written, every other one compiled"

step "SessionModel tests, 100 iterations"
# The observable model must be in step with its calls every time, not most times.
.build/debug/SessionKitPackageTests.xctest --testing-library swift-testing --filter SessionModelTests --repetitions 100 \
    > .build/test-model-output.txt 2>&1 || { tail -60 .build/test-model-output.txt >&2; echo "a SessionModel test failed in 100 iterations" >&2; exit 1; }
grep -E "Test run with" .build/test-model-output.txt | sed 's/\x1b\[[0-9;]*m//g'

step "model check: every input sequence to the CI depth, against the invariants"
# On the debug build made above (a release build of its own would cost minutes here), every model
# to its default depth, the session machine to 11 (1.4 million states); a broken invariant prints
# its name and the shortest input sequence as a script. Deeper: Scripts/model-check.sh 12 (release).
Scripts/model-check.sh --debug > .build/model-check-output.txt 2>&1 || { cat .build/model-check-output.txt >&2; exit 1; }
cat .build/model-check-output.txt

step "public API against its baseline (Scripts/API; a removal or change needs a CHANGELOG entry)"
Scripts/api.sh

step "documentation (DocC, warnings fail; every page opened in headless Chromium)"
Scripts/docs.sh

step "default credential store on a headless machine (no D-Bus session)"
headless_runtime=$(mktemp -d)
env -u DBUS_SESSION_BUS_ADDRESS -u DISPLAY -u WAYLAND_DISPLAY XDG_RUNTIME_DIR="$headless_runtime" \
    swift test --skip-build --filter 'DefaultCredentialStoreTests|PlatformStoreHeadlessTests' > .build/test-headless-output.txt 2>&1 \
    || { cat .build/test-headless-output.txt; exit 1; }
rm -rf "$headless_runtime"
grep -q "aHeadlessMachineFallsBackToFilesWithTheSystemsReason() passed" .build/test-headless-output.txt \
    || { cat .build/test-headless-output.txt; echo "the headless fallback test did not run" >&2; exit 1; }
grep -q "Suite PlatformStoreHeadlessTests passed" .build/test-headless-output.txt \
    || { cat .build/test-headless-output.txt; echo "the short initialiser's headless fallback suite did not run" >&2; exit 1; }
echo "without a keyring the default store and Session(provider:presenter:) fall back to files and say why"

if [ "$tsan" = 1 ]; then
    step "swift test under the thread sanitizer"
    # The crash suite (200 SIGKILLs of child processes) ran in the pass above; under the sanitizer
    # it is the run's longest suite and checks no thread interleaving of its own.
    # Only the test bundle and what it runs are built: the benchmarks and the model checker's
    # runner were built above and hold no test.
    swift build --product SessionKitPackageTests --sanitize=thread --scratch-path .build/tsan > .build/build-tsan-output.txt 2>&1 \
        || { grep -vE '^\[[0-9]+/[0-9]+\] ' .build/build-tsan-output.txt | tail -80 >&2; echo "the sanitizer's build failed" >&2; exit 1; }
    tail -n 1 .build/build-tsan-output.txt
    run_tests .build/test-tsan-output.txt --skip-build --sanitize=thread --scratch-path .build/tsan --skip SessionCrashTests
fi

if [ "$fuzz" = 1 ] && [ -x Fuzz/run.sh ]; then
    step "fuzzing, ${FUZZ_SECONDS:-3} s per target"
    Fuzz/run.sh "${FUZZ_SECONDS:-3}"
fi

step "walkthrough is deterministic"
# Every scenario, 16 runs, four at a time so they load the machine for each other: every run's
# output must equal the first's, byte for byte, each within a time bound.
swift build --product walkthrough >/dev/null
rm -f .build/walkthrough-*.txt
for batch in 1 2 3 4; do
    pids=()
    for lane in 1 2 3 4; do
        timeout 300 .build/debug/walkthrough > ".build/walkthrough-$batch-$lane.txt" & pids+=($!)
    done
    for pid in "${pids[@]}"; do
        wait "$pid" || { echo "a walkthrough run failed or timed out (exit $?)" >&2; exit 1; }
    done
done
for run in .build/walkthrough-*.txt; do
    if ! cmp -s .build/walkthrough-1-1.txt "$run"; then
        echo "walkthrough output differs between runs:" >&2
        diff .build/walkthrough-1-1.txt "$run" >&2 || true
        exit 1
    fi
done
echo "walkthrough output identical across 16 runs, four at a time ($(wc -l < .build/walkthrough-1-1.txt) lines)"

step "done"
