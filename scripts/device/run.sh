#!/usr/bin/env bash
# On the GPU machine, from a copy of the working tree with .device-bundle/ beside it, in one
# command of under 9 minutes: installs the bundle's wheels into a private folder, then runs
# the health-code device matrix (`[device]` of loadtests/families/health-code.toml) and the
# accuracy check, writing health-code.gpu.json to $OUT (default .servelab/device). Then, here:
#   servelab report <that folder>/health-code.gpu.json   # -> docs/results/health-code.gpu.md
#
# Env: PYTHON (python3: the machine's, with PyTorch), BUNDLE (.device-bundle), SITE (where
# the wheels go; /tmp/servelab-site), OUT. Arguments go to `python -m servelab.bench.device run`
# (--form smoke, --budget-s N). Without a bundle's wheels the environment is used as it is.
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
BUNDLE=${BUNDLE:-.device-bundle}
SITE=${SITE:-/tmp/servelab-site}
OUT=${OUT:-.servelab/device}
if compgen -G "$BUNDLE/wheels/*.whl" >/dev/null; then
    echo "run.sh: installing $(ls "$BUNDLE"/wheels/*.whl | wc -l) wheels into $SITE" >&2
    "$PYTHON" -m pip install --quiet --no-index --no-deps --no-compile --no-cache-dir \
        --upgrade --target "$SITE" "$BUNDLE"/wheels/*.whl
    export PATH="$SITE/bin:$PATH"
    export PYTHONPATH="$SITE${PYTHONPATH:+:$PYTHONPATH}"
fi
# The compose recipes as the bundle resolved them (the GPU machine has no docker-compose).
if [ -d "$BUNDLE/compose" ]; then
    export SERVELAB_COMPOSE_RESOLVED="$BUNDLE/compose"
fi
# The project's own code, from the tree.
ROOT=$(pwd)
export PYTHONPATH="$ROOT/tools/servelab/src:$ROOT/packages/servicekit/src:$ROOT/services/health-code/src${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
exec "$PYTHON" -m servelab.bench.device run --bundle "$BUNDLE" --out "$OUT" "$@"
