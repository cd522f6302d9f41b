#!/usr/bin/env bash
# Regenerate the Python code of the compute service's contract:
#   packages/compute-contract/compute.thrift -> packages/compute-contract/src/compute_contract/computeidl
# Both sides (the compute server and the entry editor's client) import it from there.
# Usage: scripts/thrift-gen.sh [OUTPUT_ROOT]   (default: the repository; the package's
# tests/test_idl.py generates into a temporary root and compares)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
package="packages/compute-contract"
out="${1:-$root}/$package/src/compute_contract/computeidl"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
thrift --gen py:slots -out "$work" "$root/$package/compute.thrift"
mkdir -p "$out"
cp "$work"/computeidl/{__init__,constants,ttypes,Compute}.py "$out/"
