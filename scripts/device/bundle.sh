#!/usr/bin/env bash
# Here, before a GPU machine is lent: assembles .device-bundle/ (git-ignored), everything the
# GPU machine lacks for scripts/device/run.sh: wheels for its Python 3.12, k6 (stripped,
# xz-compressed) and saved screenshots for the accuracy check. Refuses a folder that would
# not travel with the working tree in one call (64 MiB in all).
set -euo pipefail
cd "$(dirname "$0")/../.."
UV=$(command -v uv 2>/dev/null || echo "python3 -m uv")
exec $UV run --frozen python -m servelab.bench.device bundle "$@"
