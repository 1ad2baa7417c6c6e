#!/usr/bin/env bash
# Scripts/mutation-check.sh [DEPTH] [PATCH]...
#
# Shows that the model checker catches real bugs: applies each mutation of Scripts/Mutations (or
# the patches named), one at a time, to a copy of the tree (.build/mutation-tree, tracked and new
# files, with a build directory of its own that stays warm between mutations), builds the model
# checker (debug, assertions off so a mutation that confuses the machine is reported rather than
# trapped), explores every model to DEPTH (default 8), and expects a violation. Prints, per
# mutation, the invariant that broke and its counterexample; exits 1 when any mutation survives.
#
# Not part of Scripts/test.sh: each mutation is a rebuild (about a minute here).
set -euo pipefail
cd "$(dirname "$0")/.."

depth=8
patches=()
for argument in "$@"; do
    case $argument in
        *.patch) patches+=("$argument") ;;
        *[!0-9]* | '') echo "usage: Scripts/mutation-check.sh [DEPTH] [PATCH]..." >&2; exit 2 ;;
        *) depth=$argument ;;
    esac
done
[ ${#patches[@]} -gt 0 ] || patches=(Scripts/Mutations/*.patch)

work=${MUTATION_TREE:-.build/mutation-tree}
mkdir -p "$work/.build"
# The tree as it is now, uncommitted files included; the copy's own .build is kept (warm), every
# other file replaced, so a file moved or deleted here is gone there too.
find "$work" -mindepth 1 -maxdepth 1 ! -name .build -exec rm -rf {} +
git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$work"

build() {
    (cd "$work" && swift build --product model-check -Xswiftc -assert-config -Xswiftc Release > .build/mutation-build.log 2>&1) \
        || { tail -40 "$work/.build/mutation-build.log" >&2; return 1; }
}

echo "==> the unmutated tree: every invariant holds"
build
"$work/.build/debug/model-check" "$depth" | grep -E '^[a-z]|VIOLATION|counterexample'

survivors=0
for patch in "${patches[@]}"; do
    name=$(basename "$patch" .patch)
    echo
    echo "==> $name"
    if ! (cd "$work" && patch -p1 -s --dry-run < "$OLDPWD/$patch" > /dev/null && patch -p1 -s < "$OLDPWD/$patch"); then
        echo "the mutation does not apply to this tree" >&2
        survivors=$((survivors + 1))
        continue
    fi
    status=0
    if build; then
        output=$("$work/.build/debug/model-check" "$depth") || status=$?
        printf '%s\n' "$output" | grep -E 'VIOLATION|counterexample' | sed 's/^ *//' || true
    else
        status=3
    fi
    (cd "$work" && patch -p1 -R -s < "$OLDPWD/$patch")
    case $status in
        1) echo "caught" ;;
        3) echo "the mutation did not build" >&2; survivors=$((survivors + 1)) ;;
        *) echo "SURVIVED: no invariant broke" >&2; survivors=$((survivors + 1)) ;;
    esac
done
build >/dev/null 2>&1 || true
echo
echo "$(( ${#patches[@]} - survivors )) of ${#patches[@]} mutations caught"
[ "$survivors" = 0 ]
