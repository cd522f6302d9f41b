"""Run the official nginx image's configuration with the local nginx binary.

The image renders /etc/nginx/templates/*.template into /etc/nginx/conf.d/ with
envsubst (only variables the environment defines) and includes conf.d from its
main nginx.conf. This module does the same in a private prefix directory.
"""

from __future__ import annotations

import getpass
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

from servelab.stack.compose import ComposeError, Service
from servelab.stack.servers.process import find

TEMPLATES = "/etc/nginx/templates/"
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")

_MAIN_CONF = """\
# Written by servelab for a local run; mirrors the nginx image's /etc/nginx/nginx.conf.
{user}worker_processes auto;
error_log stderr warn;
pid {prefix}/nginx.pid;

events {{
    worker_connections 4096;
}}

http {{
    include {mime_types};
    default_type application/octet-stream;
    sendfile on;
    keepalive_timeout 65;
    access_log off;
    client_body_temp_path {prefix}/temp/client_body;
    proxy_temp_path {prefix}/temp/proxy;
    fastcgi_temp_path {prefix}/temp/fastcgi;
    uwsgi_temp_path {prefix}/temp/uwsgi;
    scgi_temp_path {prefix}/temp/scgi;
    include {prefix}/conf.d/*.conf;
}}
"""


def envsubst(
    text: str, env: Mapping[str, str], lists: Mapping[str, Sequence[str]] | None = None
) -> str:
    """Substitute $VAR and ${VAR} for the variables `env` defines; leave nginx's own alone.

    A line naming a variable of `lists` is written once per item: `server ${UPSTREAM};`
    with the addresses of two replicas becomes two `server` lines, as nginx reads a name
    that resolves to two addresses.
    """
    lists = lists or {}

    def substitute(line: str, values: Mapping[str, str]) -> str:
        def replace(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            return values.get(name, match.group(0))

        return _VARIABLE.sub(replace, line)

    lines = []
    for line in text.splitlines(keepends=True):
        named = {m.group(1) or m.group(2) for m in _VARIABLE.finditer(line)} & set(lists)
        if len(named) > 1:
            raise ComposeError(f"a template line names several list variables: {line.strip()}")
        if not named:
            lines.append(substitute(line, env))
            continue
        name = named.pop()
        lines.extend(substitute(line, {**env, name: item}) for item in lists[name])
    return "".join(lines)


def prepare(
    service: Service,
    env: Mapping[str, str],
    prefix: Path,
    lists: Mapping[str, Sequence[str]] | None = None,
) -> list[str]:
    """Render the service's templates under `prefix` and return the nginx command line;
    `lists` are the variables with a value per replica (envsubst)."""
    conf_d = prefix / "conf.d"
    # Already there when the stack starts nginx again (Stack.restart): rendered anew.
    conf_d.mkdir(parents=True, exist_ok=True)
    (prefix / "temp").mkdir(exist_ok=True)
    for mount in service.mounts:
        if mount.type == "volume":
            continue
        if not (mount.target.startswith(TEMPLATES) and mount.target.endswith(".template")):
            raise ComposeError(
                f"{service.name}: the local runner maps only nginx templates and named volumes, "
                f"not {mount.source} -> {mount.target}"
            )
        name = mount.target.removeprefix(TEMPLATES).removesuffix(".template")
        rendered = envsubst(Path(mount.source).read_text(), env, lists)
        (conf_d / name).write_text(rendered)
    # The image runs workers as an unprivileged user that owns its volumes; a local run
    # as root keeps workers as root so they can read and write the runner's volume dirs.
    user = f"user {getpass.getuser()};\n" if os.geteuid() == 0 else ""
    (prefix / "nginx.conf").write_text(
        _MAIN_CONF.format(user=user, prefix=prefix, mime_types=_mime_types())
    )
    conf = str(prefix / "nginx.conf")
    return [find("nginx", "nginx-light"), "-p", str(prefix), "-c", conf, "-g", "daemon off;"]


def _mime_types() -> str:
    for candidate in ("/etc/nginx/mime.types", "/usr/local/nginx/conf/mime.types"):
        if Path(candidate).exists():
            return candidate
    raise ComposeError("nginx mime.types not found: is nginx installed?")
