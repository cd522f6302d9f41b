#!/bin/sh
# servelab stand-in for the official mariadb image's entrypoint, built from Debian packages;
# not the official image. On an empty datadir it initialises the server as the official
# entrypoint does from: MARIADB_ROOT_PASSWORD, MARIADB_ALLOW_EMPTY_ROOT_PASSWORD or
# MARIADB_RANDOM_ROOT_PASSWORD (one of them is required), MARIADB_ROOT_HOST (default %),
# MARIADB_DATABASE, MARIADB_USER with MARIADB_PASSWORD, MARIADB_INITDB_SKIP_TZINFO, the
# MYSQL_* names where the MARIADB_* one is unset, the *_FILE variants of the root password,
# the database, the user and its password (the value read from the file named; setting both
# is an error), and /docker-entrypoint-initdb.d/*.sh, *.sql, *.sql.gz in order; it creates
# the healthcheck user that healthcheck.sh connects as. Not emulated: MARIADB_AUTO_UPGRADE,
# MARIADB_MYSQL_LOCALHOST_USER, replication and Galera settings.
set -eu

log() { echo "$(date -u '+%F %T') 0 [Note] [Entrypoint]: $*" >&2; }
die() {
    echo "$(date -u '+%F %T') 0 [ERROR] [Entrypoint]: $*" >&2
    exit 1
}

# One SQL statement on a line (printf: dash's echo would rewrite the backslashes).
sql() { printf '%s\n' "$*"; }
# file_env VAR: VAR's value, or the content of the file VAR_FILE names (a secret), as the
# official entrypoint reads them.
file_env() {
    eval "value=\${$1:-} file=\${$1_FILE:-}"
    if [ -n "$value" ] && [ -n "$file" ]; then
        die "both $1 and $1_FILE are set (but are exclusive)"
    fi
    if [ -n "$file" ]; then
        [ -r "$file" ] || die "$1_FILE=$file cannot be read"
        value=$(cat "$file")
    fi
    eval "$1=\$value"
    unset "$1_FILE"
}

# $1 as a single-quoted SQL string's contents.
sql_escape() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e "s/'/\\\\'/g"; }

if [ "${1#-}" != "$1" ]; then
    set -- mariadbd "$@"
fi
case "$1" in
    mariadbd | mysqld) ;;
    *) exec "$@" ;;
esac

log "servelab stand-in for mariadb:11: Debian's $(mariadbd --version | cut -d' ' -f4), not the official image"

for name in MARIADB_ROOT_PASSWORD MYSQL_ROOT_PASSWORD MARIADB_DATABASE MYSQL_DATABASE \
    MARIADB_USER MYSQL_USER MARIADB_PASSWORD MYSQL_PASSWORD; do
    file_env "$name"
done
MARIADB_ALLOW_EMPTY_ROOT_PASSWORD=${MARIADB_ALLOW_EMPTY_ROOT_PASSWORD:-${MYSQL_ALLOW_EMPTY_PASSWORD:-}}
MARIADB_RANDOM_ROOT_PASSWORD=${MARIADB_RANDOM_ROOT_PASSWORD:-${MYSQL_RANDOM_ROOT_PASSWORD:-}}
MARIADB_ROOT_PASSWORD=${MARIADB_ROOT_PASSWORD:-${MYSQL_ROOT_PASSWORD:-}}
MARIADB_ROOT_HOST=${MARIADB_ROOT_HOST:-${MYSQL_ROOT_HOST:-%}}
MARIADB_DATABASE=${MARIADB_DATABASE:-${MYSQL_DATABASE:-}}
MARIADB_USER=${MARIADB_USER:-${MYSQL_USER:-}}
MARIADB_PASSWORD=${MARIADB_PASSWORD:-${MYSQL_PASSWORD:-}}
MARIADB_INITDB_SKIP_TZINFO=${MARIADB_INITDB_SKIP_TZINFO:-${MYSQL_INITDB_SKIP_TZINFO:-}}

# Where this command line puts the data and the socket (arguments may move them).
help=$("$@" --verbose --help 2>/dev/null)
DATADIR=$(printf '%s\n' "$help" | awk '$1 == "datadir" && NF == 2 { print $2; exit }')
SOCKET=$(printf '%s\n' "$help" | awk '$1 == "socket" && NF == 2 { print $2; exit }')
DATADIR=${DATADIR%/}
[ -n "$DATADIR" ] && [ -n "$SOCKET" ] || die "could not read datadir and socket from $1 --verbose --help"

# The server runs as the mysql user; the prefix that makes it so when started as root.
as_mysql=
if [ "$(id -u)" = 0 ]; then
    as_mysql="setpriv --reuid=mysql --regid=mysql --init-groups"
fi

if [ "$(id -u)" = 0 ]; then
    mkdir -p "$DATADIR" "$(dirname "$SOCKET")"
    find "$DATADIR" "$(dirname "$SOCKET")" \! -user mysql -exec chown mysql:mysql '{}' +
fi

if [ ! -d "$DATADIR/mysql" ]; then
    if [ -z "$MARIADB_ROOT_PASSWORD" ] && [ -z "$MARIADB_ALLOW_EMPTY_ROOT_PASSWORD" ] \
        && [ -z "$MARIADB_RANDOM_ROOT_PASSWORD" ]; then
        die "Database is uninitialized and password option is not specified
	You need to specify one of MARIADB_ROOT_PASSWORD, MARIADB_ALLOW_EMPTY_ROOT_PASSWORD and MARIADB_RANDOM_ROOT_PASSWORD"
    fi
    if [ -n "$MARIADB_USER" ] && [ "$MARIADB_USER" = root ]; then
        die "MARIADB_USER=root: the root user is already created; set MARIADB_ROOT_PASSWORD instead"
    fi
    if [ -n "$MARIADB_RANDOM_ROOT_PASSWORD" ] && [ -z "$MARIADB_ROOT_PASSWORD" ]; then
        MARIADB_ROOT_PASSWORD=$(tr -dc 'A-Za-z0-9,.!_^-' </dev/urandom | head -c 32)
        log "GENERATED ROOT PASSWORD: $MARIADB_ROOT_PASSWORD"
    fi

    log "Initializing database files"
    server=$1
    shift
    $as_mysql mariadb-install-db --datadir="$DATADIR" --auth-root-authentication-method=normal \
        --skip-test-db --skip-log-bin "$@" >/dev/null
    set -- "$server" "$@"
    log "Database files initialized"

    log "Starting temporary server"
    # The server itself in the background (setpriv execs it), so that $! is its pid.
    $as_mysql "$@" --skip-networking --default-time-zone=SYSTEM --socket="$SOCKET" \
        --skip-log-bin --loose-innodb-buffer-pool-load-at-startup=0 &
    temporary=$!
    client() { mariadb --protocol=socket --socket="$SOCKET" -uroot "$@"; }
    tries=60
    until mariadb-admin --protocol=socket --socket="$SOCKET" -uroot ping >/dev/null 2>&1; do
        kill -0 "$temporary" 2>/dev/null || die "the temporary server exited while starting"
        tries=$((tries - 1))
        [ "$tries" -gt 0 ] || die "the temporary server did not start within 30 s"
        sleep 0.5
    done
    log "Temporary server started."

    if [ -z "$MARIADB_INITDB_SKIP_TZINFO" ]; then
        # The tables of every zone, for CONVERT_TZ and named time_zone values.
        mariadb-tzinfo-to-sql --skip-write-binlog /usr/share/zoneinfo 2>/dev/null | client mysql
    fi

    healthcheck_password=$(tr -dc 'A-Za-z0-9' </dev/urandom | head -c 32)
    root_password=$(sql_escape "$MARIADB_ROOT_PASSWORD")
    root_host=$(sql_escape "$MARIADB_ROOT_HOST")
    log "Securing system users (equivalent to running mysql_secure_installation)"
    {
        sql "SET @@SESSION.SQL_LOG_BIN=0;"
        sql "SET @@SESSION.SQL_MODE=REPLACE(@@SESSION.SQL_MODE, 'NO_BACKSLASH_ESCAPES', '');"
        sql "DROP USER IF EXISTS root@'127.0.0.1', root@'::1';"
        sql "EXECUTE IMMEDIATE CONCAT('DROP USER IF EXISTS root@\\'', @@hostname, '\\'');"
        sql "SET PASSWORD FOR 'root'@'localhost' = PASSWORD('$root_password');"
        if [ "$MARIADB_ROOT_HOST" != localhost ]; then
            sql "CREATE USER 'root'@'$root_host' IDENTIFIED BY '$root_password';"
            sql "GRANT ALL ON *.* TO 'root'@'$root_host' WITH GRANT OPTION;"
            sql "GRANT PROXY ON ''@'%' TO 'root'@'$root_host' WITH GRANT OPTION;"
        fi
        for host in 127.0.0.1 ::1 localhost; do
            sql "CREATE USER healthcheck@'$host' IDENTIFIED BY '$healthcheck_password';"
        done
        if [ -n "$MARIADB_DATABASE" ]; then
            log "Creating database $MARIADB_DATABASE"
            sql "CREATE DATABASE IF NOT EXISTS \`$MARIADB_DATABASE\`;"
        fi
        if [ -n "$MARIADB_USER" ] && [ -n "$MARIADB_PASSWORD" ]; then
            log "Creating user $MARIADB_USER"
            user=$(sql_escape "$MARIADB_USER")
            sql "CREATE USER '$user'@'%' IDENTIFIED BY '$(sql_escape "$MARIADB_PASSWORD")';"
            if [ -n "$MARIADB_DATABASE" ]; then
                log "Giving user $MARIADB_USER access to schema $MARIADB_DATABASE"
                sql "GRANT ALL ON \`$MARIADB_DATABASE\`.* TO '$user'@'%';"
            fi
        fi
    } | client
    # Every later client connects as root with the password just set.
    export MYSQL_PWD="$MARIADB_ROOT_PASSWORD"

    cat >"$DATADIR/.my-healthcheck.cnf" <<CNF
[mariadb-client]
port=3306
socket=$SOCKET
user=healthcheck
password=$healthcheck_password
CNF
    chmod 600 "$DATADIR/.my-healthcheck.cnf"
    if [ "$(id -u)" = 0 ]; then
        chown mysql:mysql "$DATADIR/.my-healthcheck.cnf"
    fi

    for f in $(find /docker-entrypoint-initdb.d/ -mindepth 1 -maxdepth 1 -type f -print | sort); do
        case "$f" in
            *.sh) log "$0: running $f"; . "$f" ;;
            *.sql) log "$0: running $f"; client ${MARIADB_DATABASE:+"$MARIADB_DATABASE"} <"$f" ;;
            *.sql.gz) log "$0: running $f"; gunzip -c "$f" | client ${MARIADB_DATABASE:+"$MARIADB_DATABASE"} ;;
            *) log "$0: ignoring $f" ;;
        esac
    done

    log "Stopping temporary server"
    kill "$temporary"
    wait "$temporary" || die "the temporary server did not stop cleanly"
    log "Temporary server stopped"
    log "MariaDB init process done. Ready for start up."
fi

exec $as_mysql "$@"
