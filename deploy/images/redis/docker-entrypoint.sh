#!/bin/sh
# servelab stand-in for the official redis image's entrypoint (built from Debian packages).
set -eu

if [ "${1#-}" != "$1" ] || [ "${1%.conf}" != "$1" ]; then
    set -- redis-server "$@"
fi

if [ "$1" = redis-server ]; then
    echo "$0: servelab stand-in for redis:7: Debian's $(redis-server --version | cut -d' ' -f1-3), not the official image" >&2
    shift
    # The official image builds redis with protected mode off, so other containers reach it
    # without a password; Debian's build has it on. A config file given first decides itself.
    case "${1:-}" in
        *.conf) conf=$1; shift; set -- redis-server "$conf" "$@" ;;
        *) set -- redis-server --protected-mode no "$@" ;;
    esac
    if [ "$(id -u)" = 0 ]; then
        find . \! -user redis -exec chown redis '{}' +
        umask 0077
        exec setpriv --reuid=redis --regid=redis --init-groups "$@"
    fi
fi

exec "$@"
