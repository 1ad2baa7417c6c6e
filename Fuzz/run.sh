#!/usr/bin/env bash
# Fuzzes SessionKitJOSE's parsers with libFuzzer for a fixed time per target.
#
#   Fuzz/run.sh [SECONDS] [TARGET...]     (default: 20 seconds; every target)
#
# Targets: jws (compact-JWS parser), jwks (JWKS decoder), base64url (strict decoder),
# json (tree parser vs scanning parser), idtoken (full ID-token validation), userinfo (UserInfo
# response decoder and its sub check), loopback (the loopback presenter's HTTP request-head parser).
# Prints one line per target, "TARGET: executions=N crashes=N", and exits non-zero when any
# target crashed or could not run. Crash inputs are kept in Fuzz/.build/crash-TARGET-*.
#
# SwiftPM cannot link libFuzzer targets, so the module's sources and Targets/FuzzTargets.swift
# are compiled together with swiftc (-sanitize=fuzzer,address) into one binary that picks its
# target from JOSE_FUZZ_TARGET.
set -euo pipefail

seconds="${1:-20}"
if [[ $# -gt 0 ]]; then shift; fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then targets=(jws jwks base64url json idtoken userinfo loopback); fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
    echo "usage: Fuzz/run.sh [SECONDS] [TARGET...]" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$here/.build"
binary="$build/jose-fuzz"
mkdir -p "$build"

mapfile -t sources < <(find "$root/Sources/SessionKitJOSE" -name '*.swift' | sort)
# The loopback presenter's request-head parser needs nothing but the standard library.
sources+=("$root/Sources/SessionKit/Handoff/LoopbackRequestHead.swift")
sources+=("$here/Targets/FuzzTargets.swift")

rebuild=0
if [[ ! -x "$binary" ]]; then
    rebuild=1
else
    for source in "${sources[@]}" "$root/Sources/CSessionKitOpenSSL/shim.h" "$0"; do
        if [[ "$source" -nt "$binary" ]]; then rebuild=1; break; fi
    done
fi
if [[ $rebuild -eq 1 ]]; then
    echo "building $binary" >&2
    if ! swiftc -O -swift-version 6 -package-name SessionKit -sanitize=fuzzer,address -parse-as-library \
        -module-name SessionKitJOSE -use-ld=lld \
        -I "$root/Sources/CSessionKitOpenSSL" \
        "${sources[@]}" -o "$binary.tmp" >"$build/build.log" 2>&1; then
        cat "$build/build.log" >&2
        echo "fuzz build failed" >&2
        exit 2
    fi
    mv "$binary.tmp" "$binary"
fi

failed=0
for target in "${targets[@]}"; do
    corpus="$here/corpus-$target"
    seeds="$here/Seeds/$target"
    log="$build/fuzz-$target.log"
    mkdir -p "$corpus"
    options=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$build/crash-$target-"
        -timeout=10 -rss_limit_mb=2048)
    if [[ -f "$here/Dictionaries/$target.dict" ]]; then options+=(-dict="$here/Dictionaries/$target.dict"); fi
    directories=("$corpus")
    if [[ -d "$seeds" ]]; then directories+=("$seeds"); fi
    set +e
    SWIFT_BACKTRACE=enable=no JOSE_FUZZ_TARGET="$target" "$binary" "${options[@]}" "${directories[@]}" >"$log" 2>&1
    status=$?
    set -e
    executions="$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' | tail -n 1)"
    crashes=0
    if [[ $status -ne 0 ]]; then
        crashes=1
        failed=1
        echo "$target: libFuzzer exited with $status; see $log" >&2
        tail -n 30 "$log" >&2
    fi
    echo "$target: executions=${executions:-0} crashes=$crashes"
done
exit $failed
