#!/usr/bin/env bash
# Run the tests (sets everything up first): every tier, the long ones in their CI-sized slices, as CI does
# (-m "not full"). `--fast`: the developer's tier only (-m "not slow", what a bare `pytest` runs).
# Extra arguments go to pytest; a later -m wins (`-m ""` runs every test, full tiers included). docs/testing.md
set -euo pipefail
cd "$(dirname "$0")/.."
marks="not full"
if [ "${1:-}" = "--fast" ]; then
  marks="not slow"
  shift
fi
bash scripts/setup.sh
exec .venv/bin/python -m pytest -m "$marks" "$@"
