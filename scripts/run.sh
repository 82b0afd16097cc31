#!/usr/bin/env bash
# The main job: the scripted (oracle) agent solves every task of benchmark v0 (real X session + phone)
# and prints the metrics table; records and a report land in runs/oracle. Extra arguments go to `crab-gym eval`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/crab-gym eval --agent oracle --tasks v0 --devices ubuntu,android --out runs/oracle "$@"
