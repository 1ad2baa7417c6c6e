#!/usr/bin/env bash
# Fuzzes SessionKitJOSE's and SessionKitHandoffs' parsers with libFuzzer for a fixed time per target.
#
#   Fuzz/run.sh [SECONDS] [TARGET...]     (default: 20 seconds; every target)
#
# Targets: jws (compact-JWS parser), jwks (JWKS decoder), ecjwk (one EC JWK and the ECDSA
# signature forms), base64url (strict decoder),
# json (tree parser vs scanning parser), idtoken (full ID-token validation), userinfo (UserInfo
# response decoder and its sub check), grant (1Password access-grant decoder), intake
# (credential-import activity intake), cxf (Credential Exchange Format decoder), loopback (the
# loopback presenter's HTTP request-head parser), wwwauth (WWW-Authenticate challenges),
# dpopnonce (DPoP-Nonce values).
# Targets run one per core at a time (FUZZ_JOBS=N to choose), each for SECONDS.
# Prints one line per target, "TARGET: executions=N crashes=N", and exits non-zero when any
# target crashed or could not run. Crash inputs are kept in Fuzz/.build/crash-TARGET-*.
#
# SwiftPM cannot link libFuzzer targets, so the binaries are built with swiftc
# (-sanitize=fuzzer,address): jose-fuzz compiles SessionKitJOSE's sources together with
# Targets/FuzzTargets.swift into one module and picks its target from JOSE_FUZZ_TARGET;
# handoffs-fuzz compiles SessionKitJOSE, SessionKitCore and SessionKitHandoffs as modules of their
# own, links Targets/HandoffFuzzTargets.swift against them, and reads HANDOFFS_FUZZ_TARGET.
set -euo pipefail

seconds="${1:-20}"
if [[ $# -gt 0 ]]; then shift; fi
targets=("$@")
if [[ ${#targets[@]} -eq 0 ]]; then targets=(jws jwks ecjwk base64url json idtoken userinfo loopback wwwauth dpopnonce grant intake cxf); fi
if ! [[ "$seconds" =~ ^[0-9]+$ ]]; then
    echo "usage: Fuzz/run.sh [SECONDS] [TARGET...]" >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
build="$here/.build"
binary="$build/jose-fuzz"
mkdir -p "$build"

handoff_targets=" grant intake cxf "
needs_jose=0 needs_handoffs=0
for target in "${targets[@]}"; do
    if [[ "$handoff_targets" == *" $target "* ]]; then needs_handoffs=1; else needs_jose=1; fi
done

# Rebuilds $1 (a binary) when it is missing or older than any of the remaining arguments.
stale() {
    local binary=$1
    shift
    [[ -x "$binary" ]] || return 0
    local source
    for source in "$@" "$0"; do
        if [[ "$source" -nt "$binary" ]]; then return 0; fi
    done
    return 1
}

swift_flags=(-O -swift-version 6 -package-name SessionKit -sanitize=fuzzer,address -parse-as-library
    -enable-upcoming-feature ExistentialAny -I "$root/Sources/CSessionKitOpenSSL")
mapfile -t jose_sources < <(find "$root/Sources/SessionKitJOSE" -name '*.swift' | sort)

handoffs_binary="$build/handoffs-fuzz"
build_jose() {
    # The loopback presenter's request-head parser needs nothing but the standard library.
    sources=("${jose_sources[@]}" "$root/Sources/SessionKit/Handoff/LoopbackRequestHead.swift" "$here/Targets/FuzzTargets.swift")
    if stale "$binary" "${sources[@]}" "$root/Sources/CSessionKitOpenSSL/shim.h"; then
        echo "building $binary" >&2
        if ! swiftc "${swift_flags[@]}" -module-name SessionKitJOSE -use-ld=lld \
            "${sources[@]}" -o "$binary.tmp" >"$build/build.log" 2>&1; then
            cat "$build/build.log" >&2
            echo "fuzz build failed" >&2
            exit 2
        fi
        mv "$binary.tmp" "$binary"
    fi
}

build_handoffs() {
    mapfile -t core_sources < <(find "$root/Sources/SessionKitCore" -name '*.swift' | sort)
    mapfile -t handoff_sources < <(find "$root/Sources/SessionKitHandoffs" -name '*.swift' | sort)
    support="$root/Sources/CSessionKitSupport"
    if stale "$handoffs_binary" "${jose_sources[@]}" "${core_sources[@]}" "${handoff_sources[@]}" \
        "$here/Targets/HandoffFuzzTargets.swift" "$support/secret_runtime.c" "$support/include/CSessionKitSupport.h" \
        "$support/include/sessionkit_secret_runtime.h"; then
        echo "building $handoffs_binary" >&2
        modules="$build/modules"
        rm -rf "$modules"
        mkdir -p "$modules/CSessionKitSupport"
        printf 'module CSessionKitSupport {\n    header "%s"\n    export *\n}\n' "$support/include/CSessionKitSupport.h" \
            >"$modules/CSessionKitSupport/module.modulemap"
        # Each module is compiled whole into one object, in dependency order, then linked with
        # the entry points.
        build_module() {
            local name=$1
            shift
            swiftc "${swift_flags[@]}" -module-name "$name" -wmo -c -emit-module \
                -emit-module-path "$modules/$name.swiftmodule" -I "$modules" -I "$modules/CSessionKitSupport" \
                "$@" -o "$modules/$name.o"
        }
        if ! { clang -c -O1 -fsanitize=fuzzer-no-link,address -I "$support/include" "$support/secret_runtime.c" \
                -o "$modules/CSessionKitSecretRuntime.o" &&
            build_module SessionKitJOSE "${jose_sources[@]}" &&
            build_module SessionKitCore "${core_sources[@]}" &&
            build_module SessionKitHandoffs "${handoff_sources[@]}" &&
            swiftc "${swift_flags[@]}" -module-name HandoffFuzzTargets -use-ld=lld -I "$modules" \
                -I "$modules/CSessionKitSupport" "$here/Targets/HandoffFuzzTargets.swift" "$modules"/*.o \
                -o "$handoffs_binary.tmp"; } >"$build/build-handoffs.log" 2>&1; then
            cat "$build/build-handoffs.log" >&2
            echo "fuzz build failed" >&2
            exit 2
        fi
        mv "$handoffs_binary.tmp" "$handoffs_binary"
    fi
}

# The two binaries build side by side (each build is mostly one compiler process).
build_pids=()
if [[ $needs_jose -eq 1 ]]; then build_jose & build_pids+=($!); fi
if [[ $needs_handoffs -eq 1 ]]; then build_handoffs & build_pids+=($!); fi
for pid in "${build_pids[@]}"; do wait "$pid" || exit 2; done

# Runs one target; its summary line goes to $build/result-TARGET, its exit status is the target's.
fuzz_target() {
    local target=$1 corpus="$here/corpus-$1" seeds="$here/Seeds/$1" log="$build/fuzz-$1.log" status executions crashes=0
    mkdir -p "$corpus"
    local options=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$build/crash-$target-"
        -timeout=10 -rss_limit_mb=2048)
    if [[ -f "$here/Dictionaries/$target.dict" ]]; then options+=(-dict="$here/Dictionaries/$target.dict"); fi
    local directories=("$corpus")
    if [[ -d "$seeds" ]]; then directories+=("$seeds"); fi
    set +e
    if [[ "$handoff_targets" == *" $target "* ]]; then
        SWIFT_BACKTRACE=enable=no HANDOFFS_FUZZ_TARGET="$target" "$handoffs_binary" "${options[@]}" "${directories[@]}" >"$log" 2>&1
    else
        SWIFT_BACKTRACE=enable=no JOSE_FUZZ_TARGET="$target" "$binary" "${options[@]}" "${directories[@]}" >"$log" 2>&1
    fi
    status=$?
    set -e
    executions="$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' | tail -n 1)"
    if [[ $status -ne 0 ]]; then
        crashes=1
        { echo "$target: libFuzzer exited with $status; see $log"; tail -n 30 "$log"; } >"$build/result-$target.err"
    fi
    echo "$target: executions=${executions:-0} crashes=$crashes" >"$build/result-$target"
    return $status
}

# One target per core at a time (FUZZ_JOBS to choose); the summaries print in the targets' order.
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
running=0
for target in "${targets[@]}"; do
    rm -f "$build/result-$target" "$build/result-$target.err"
    if ((running >= jobs)); then
        wait -n || true
        running=$((running - 1))
    fi
    fuzz_target "$target" &
    running=$((running + 1))
done
wait || true

failed=0
for target in "${targets[@]}"; do
    if [[ -f "$build/result-$target.err" ]]; then
        cat "$build/result-$target.err" >&2
        failed=1
    fi
    if [[ -f "$build/result-$target" ]]; then
        cat "$build/result-$target"
    else
        echo "$target: did not run" >&2
        failed=1
    fi
done
exit $failed
