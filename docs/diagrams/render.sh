#!/usr/bin/env bash
# Re-render the diagrams of docs/ from their Graphviz sources (needs Debian's graphviz). The SVGs are
# committed, so building the docs does not need dot; run this after editing a .dot file.
set -euo pipefail
cd "$(dirname "$0")"
for src in *.dot; do
  dot -Tsvg "$src" -o "${src%.dot}.svg"
done
