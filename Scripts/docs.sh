#!/usr/bin/env bash
# Builds the DocC documentation of every product with a catalog, with the toolchain's own tools
# (no plugin): symbol graphs from the compiler, then `docc convert --analyze`. Fails on any
# warning. Output: .build/documentation/<Module>/ (static hosting layout).
# Then checks the sites as a reader sees them (Scripts/docs-check.py): each served on 127.0.0.1 and
# opened page by page in headless Chromium; a page that does not render, an image or a request
# that fails, or an internal link that leads nowhere fails the run. Screenshots of the landing
# pages and of the Stages article: .build/documentation-screenshots/. `--no-browser` skips that.
set -euo pipefail
cd "$(dirname "$0")/.."

browser=1
for argument in "$@"; do
    case $argument in
        --no-browser) browser=0 ;;
        *) echo "usage: Scripts/docs.sh [--no-browser]" >&2; exit 2 ;;
    esac
done

modules=(SessionKitCore SessionKit SessionKitJOSE SessionKitHandoffs SessionKitSecretService SessionKitTesting)
docc_bin=$(command -v docc || true)
if [[ -z "$docc_bin" ]]; then
    docc_bin="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi

mkdir -p .build
# Symbol graphs for the documented modules only, extracted from the debug build's modules (the
# test command has made it, with these flags; the build here is then a check that builds
# nothing, where other flags would rebuild every module). `swift
# package dump-symbol-graph` would extract every module of the package, tests and benchmarks
# included: 25 s instead of 2 s here, for the same graphs.
swift build --build-tests -Xswiftc -warnings-as-errors >.build/docs-build.log 2>&1 || {
    cat .build/docs-build.log >&2
    echo "docs: swift build failed" >&2
    exit 1
}
bin=$(swift build --show-bin-path)
extract="$(dirname "$(readlink -f "$(command -v swift)")")/swift-symbolgraph-extract"
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
graphs=.build/symbol-graphs
rm -rf "$graphs"
mkdir -p "$graphs"
for module in "${modules[@]}"; do
    "$extract" -module-name "$module" -target "$triple" -I "$bin/Modules" \
        -Xcc "-fmodule-map-file=$bin/CSessionKitSupport.build/module.modulemap" -I Sources/CSessionKitOpenSSL \
        -I Sources/CSessionKitSupport/include -minimum-access-level public -output-dir "$graphs" \
        >.build/symbol-graph-extract.log 2>&1 || {
        cat .build/symbol-graph-extract.log >&2
        echo "docs: the symbol graph of $module could not be extracted" >&2
        exit 1
    }
done

failed=0
# DocC copies a link in a catalog into the site as it is, where it dangles: resources must be files.
links=$(find Sources -path '*.docc/*' -type l)
if [[ -n "$links" ]]; then
    printf '%s\n' "$links" >&2
    echo "docs: these catalog files are links, which DocC copies as they are; check in the files (Scripts/diagrams.sh does for the diagrams)" >&2
    failed=1
fi
for module in "${modules[@]}"; do
    catalog="Sources/$module/$module.docc"
    [[ -d "$catalog" ]] || { echo "docs: $catalog is missing" >&2; failed=1; continue; }
    input=".build/documentation-input/$module"
    output=".build/documentation/$module"
    rm -rf "$input" "$output"
    mkdir -p "$input" "$output"
    cp "$graphs/$module.symbols.json" "$input/"
    find "$graphs" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$input/" \;
    log=$("$docc_bin" convert "$catalog" --fallback-display-name "$module" \
        --fallback-bundle-identifier "dev.sessionkit.$module" --additional-symbol-graph-dir "$input" \
        --output-path "$output" --transform-for-static-hosting --analyze 2>&1) || {
        printf '%s\n' "$log" >&2
        echo "docs: docc convert failed for $module" >&2
        failed=1
        continue
    }
    problems=$(printf '%s\n' "$log" | grep -cE '(^| )(warning|error):' || true)
    if [[ "$problems" -gt 0 ]]; then
        printf '%s\n' "$log" | grep -E -A6 '(^| )(warning|error):' >&2
        echo "docs: $module has $problems documentation warnings" >&2
        failed=1
    else
        # DocC's pages ask the site for its theme settings; a catalog without any gets the defaults
        # written out, so the request is answered instead of failing.
        [[ -f "$output/theme-settings.json" ]] || printf '{}\n' >"$output/theme-settings.json"
        pages=$(find "$output/data/documentation" -name '*.json' | wc -l)
        echo "docs: $module: $pages pages, no warnings"
    fi
done
if [[ "$failed" = 0 && "$browser" = 1 ]]; then
    python3 Scripts/docs-check.py "${modules[@]}" || failed=1
fi
exit "$failed"
