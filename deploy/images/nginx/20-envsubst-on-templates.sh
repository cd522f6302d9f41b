#!/bin/sh
# servelab stand-in for the official nginx image's template step: every file below
# $NGINX_ENVSUBST_TEMPLATE_DIR (/etc/nginx/templates) ending in $NGINX_ENVSUBST_TEMPLATE_SUFFIX
# (.template) is rendered to $NGINX_ENVSUBST_OUTPUT_DIR (/etc/nginx/conf.d) without the
# suffix, by envsubst limited to the variables defined in the environment (and matching the
# regular expression $NGINX_ENVSUBST_FILTER when set): nginx's own $host, $uri... and any
# undefined ${NAME} stay as they are.
set -e

template_dir="${NGINX_ENVSUBST_TEMPLATE_DIR:-/etc/nginx/templates}"
suffix="${NGINX_ENVSUBST_TEMPLATE_SUFFIX:-.template}"
output_dir="${NGINX_ENVSUBST_OUTPUT_DIR:-/etc/nginx/conf.d}"
filter="${NGINX_ENVSUBST_FILTER:-}"

log() {
    if [ -z "${NGINX_ENTRYPOINT_QUIET_LOGS:-}" ]; then
        echo "$0: $*"
    fi
}

[ -d "$template_dir" ] || exit 0
if [ ! -w "$output_dir" ]; then
    log "ERROR: $template_dir exists, but $output_dir is not writable"
    exit 0
fi

# shellcheck disable=SC2016  # ${NAME} is envsubst's syntax, not the shell's
defined=$(awk -v filter="$filter" 'END { for (name in ENVIRON) if (name ~ filter) printf "${%s} ", name }' </dev/null)

find "$template_dir" -follow -type f -name "*$suffix" -print | while read -r template; do
    relative="${template#"$template_dir/"}"
    output="$output_dir/${relative%"$suffix"}"
    mkdir -p "$(dirname "$output")"
    log "Running envsubst on $template to $output"
    envsubst "$defined" <"$template" >"$output"
done
