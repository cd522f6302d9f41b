#!/bin/sh
# servelab stand-in for the official nginx image's /docker-entrypoint.sh (built from Debian
# packages): when the command is nginx, run /docker-entrypoint.d/*.sh (executable ones, in
# version order; *.envsh sourced), then exec the command.
set -e

entrypoint_log() {
    if [ -z "${NGINX_ENTRYPOINT_QUIET_LOGS:-}" ]; then
        echo "$@"
    fi
}

if [ "$1" = nginx ]; then
    entrypoint_log "$0: servelab stand-in for nginx:1.27: Debian's $(nginx -v 2>&1 | cut -d' ' -f3), not the official image"
    for f in $(find /docker-entrypoint.d/ -follow -type f -print | sort -V); do
        case "$f" in
            *.envsh)
                if [ -x "$f" ]; then
                    entrypoint_log "$0: Sourcing $f"
                    # shellcheck disable=SC1090
                    . "$f"
                else
                    entrypoint_log "$0: Ignoring $f, not executable"
                fi
                ;;
            *.sh)
                if [ -x "$f" ]; then
                    entrypoint_log "$0: Launching $f"
                    "$f"
                else
                    entrypoint_log "$0: Ignoring $f, not executable"
                fi
                ;;
            *) entrypoint_log "$0: Ignoring $f" ;;
        esac
    done
    entrypoint_log "$0: Configuration complete; ready for start up"
fi

exec "$@"
