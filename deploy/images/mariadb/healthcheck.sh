#!/bin/sh
# servelab stand-in for the official mariadb image's healthcheck.sh (built from Debian
# packages). Runs each test named on the command line in order and fails at the first that
# fails. Emulated: --connect (the server accepts TCP connections: any answer but "Can't
# connect" passes, as there), --innodb_initialized, --innodb_buffer_pool_loaded;
# --defaults-file=, --defaults-extra-file=, --no-defaults and --su-mysql are accepted. Any
# other test fails with a message saying the stand-in does not emulate it. Credentials: the
# healthcheck user the entrypoint wrote to $DATADIR/.my-healthcheck.cnf.
set -eu

datadir=/var/lib/mysql
defaults="--defaults-extra-file=$datadir/.my-healthcheck.cnf"

# The defaults option, left out while its file does not exist yet (before initialisation
# the client then fails to connect or is refused, never "passes" on a missing file).
options() {
    case "$defaults" in
        --defaults-file=* | --defaults-extra-file=*)
            if [ -r "${defaults#*=}" ]; then printf '%s' "$defaults"; fi
            ;;
        *) printf '%s' "$defaults" ;;
    esac
}

query() {
    # shellcheck disable=SC2046  # one option or none
    mariadb $(options) --skip-ssl -h 127.0.0.1 --protocol=tcp -N -B -e "$1"
}

connect() {
    # shellcheck disable=SC2046
    if output=$(mariadb $(options) --skip-ssl -h 127.0.0.1 --protocol=tcp -e 'select 1' 2>&1); then
        return 0
    fi
    case "$output" in
        *"Can't connect"*) echo "healthcheck connect failed: $output" >&2; return 1 ;;
    esac
}

innodb_initialized() {
    [ "$(query "SELECT 1 FROM information_schema.ENGINES WHERE engine = 'innodb' AND support IN ('YES', 'DEFAULT', 'ENABLED')")" = 1 ]
}

innodb_buffer_pool_loaded() {
    query "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'Innodb_buffer_pool_load_status'" \
        | grep -q '^Buffer pool(s) load completed'
}

[ $# -gt 0 ] || set -- --connect
for argument in "$@"; do
    case "$argument" in
        --connect) connect ;;
        --innodb_initialized) innodb_initialized ;;
        --innodb_buffer_pool_loaded) innodb_buffer_pool_loaded ;;
        --defaults-file=* | --defaults-extra-file=*) defaults=$argument ;;
        --no-defaults) defaults=--no-defaults ;;
        --su-mysql | --su=mysql) ;;
        *)
            echo "healthcheck.sh: $argument is not emulated by servelab's stand-in for mariadb" >&2
            exit 2
            ;;
    esac
done
