#!/usr/bin/env bash
# Regenerate the Python code of compute.thrift for both sides of the contract:
#   services/compute/src/compute_service/computeidl             (the server)
#   services/entryeditor/src/entryeditor_service/compute/computeidl  (the Django client)
# Usage: services/compute/scripts/thrift-gen.sh [OUTPUT_ROOT]   (default: the repository)
# The generated modules import each other relatively, so one output serves both packages.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
root="${1:-$(cd "$here/../.." && pwd)}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
thrift --gen py:slots -out "$work" "$here/compute.thrift"
for target in services/compute/src/compute_service/computeidl \
    services/entryeditor/src/entryeditor_service/compute/computeidl; do
    mkdir -p "$root/$target"
    cp "$work"/computeidl/{__init__,constants,ttypes,Compute}.py "$root/$target/"
done
