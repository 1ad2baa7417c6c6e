#!/usr/bin/env bash
# Regenerates the stage diagrams from the machine's transition table: the Graphviz and Mermaid
# sources in Diagrams/ (written by `walkthrough --diagram`), their SVGs (rendered by Graphviz
# `dot`), and the SVG copies the DocC catalog shows. The test suite fails until this has been run
# after a change to the table.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v dot >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq graphviz
    else
        echo "Graphviz is missing: sudo apt-get install graphviz" >&2
        exit 1
    fi
fi

resources=Sources/SessionKit/SessionKit.docc/Resources
swift build --product walkthrough >/dev/null
rm -f Diagrams/*.dot Diagrams/*.mmd Diagrams/*.svg "$resources"/stages*.svg
.build/debug/walkthrough --diagram Diagrams
mkdir -p "$resources"
for source in Diagrams/*.dot; do
    svg="${source%.dot}.svg"
    dot -Tsvg "$source" -o "$svg"
    # A real file, not a link: DocC copies a catalog's links as they are, where they dangle.
    rm -f "$resources/$(basename "$svg")"
    cp "$svg" "$resources/"
    echo "rendered $svg and $resources/$(basename "$svg")"
done
