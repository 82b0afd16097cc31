#!/usr/bin/env bash
# The main job: the scripted (oracle) agent solves the desktop tasks of benchmark v0 on a real X session
# and prints the metrics table; records and a report land in runs/oracle. Extra arguments go to `crab-gym eval`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/crab-gym eval --agent oracle --tasks v0 --devices ubuntu --out runs/oracle "$@"
