"""The gunicorn settings every servelab config shares; each <service>.conf.py imports them
by name and sets only what differs:

    from deploy.gunicorn.base import bind, backlog, workers, ...  # every name in __all__

gunicorn puts its working directory (the project's root, /app in the image) on sys.path
before it execs a config file (Application.chdir), so `deploy.gunicorn.base` imports as a
namespace package there, and `-c deploy/gunicorn/<service>.conf.py` stays the one
command-line argument. The configs are type-checked with the rest (`make lint`). Every
value can be changed per deployment through the environment variables read here.
"""

import os
from pathlib import Path
from typing import Any

from servicekit.metrics import multiprocess

__all__ = [
    "access_log_format",
    "accesslog",
    "backlog",
    "bind",
    "child_exit",
    "control_socket_disable",
    "errorlog",
    "forwarded_allow_ips",
    "limit_request_line",
    "on_starting",
    "worker_tmp_dir",
    "workers",
]


def env_int(name: str, default: int) -> int:
    """An integer setting from the environment, `default` when unset or empty."""
    return int(os.environ.get(name) or default)


# Same variables as the compose services and most PaaS: HOST/PORT to listen on.
bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"

# Pending connections the kernel queues while every worker is busy: a load test opens
# hundreds at once. Linux caps it at net.core.somaxconn (4096 by default since 5.4), so
# raise both together; 2048 is gunicorn's own default, spelled out because it matters.
backlog = env_int("BACKLOG", 2048)

# The one worker variable of every servelab service (and of Heroku-style platforms, which
# gunicorn and uvicorn read too); the benchmark matrices sweep it.
workers = env_int("WEB_CONCURRENCY", 1)

# gunicorn 25+ opens a control socket at one path per user ($HOME/.gunicorn), which the
# several gunicorns one host runs (the `gunicorn` profile starts nine, the tests and the
# benchmark matrix more) would fight over; nothing here uses gunicornc.
control_socket_disable = True

# Each worker's heartbeat is a file it touches every second; on a disk-backed /tmp (or an
# overlay filesystem) a slow write can stall the worker past `timeout` and get it killed.
# /dev/shm is memory; where there is none (macOS), gunicorn's default.
SHARED_MEMORY = "/dev/shm"  # noqa: S108  (a tmpfs the kernel gives every process, not a temp file)
worker_tmp_dir = SHARED_MEMORY if Path(SHARED_MEMORY).is_dir() else None

# Whose X-Forwarded-For/-Proto gunicorn believes (the client address and scheme the app
# sees): nginx in front. Loopback by default, as gunicorn's own; in compose or Kubernetes
# set FORWARDED_ALLOW_IPS to the proxy's network (e.g. 172.16.0.0/12). A peer on a unix
# socket (the entry editor's nginx) is always believed.
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS") or "127.0.0.1,::1"
# The request line nginx takes in front (large_client_header_buffers, 8 KiB): gunicorn's
# default (4,094 bytes) refused a 5,000-character query string that nginx passes on.
limit_request_line = env_int("LIMIT_REQUEST_LINE", 8190)

# gunicorn's own access log stays off: the app writes one JSON line per request
# (servicekit.observe, ACCESS_LOG=0 turns it off), the same from every server.
# GUNICORN_ACCESS_LOG=- (stdout) or a path adds gunicorn's, one logfmt line per request with
# the request id nginx sets (sync and gthread workers; uvicorn workers write uvicorn's own).
accesslog = os.environ.get("GUNICORN_ACCESS_LOG") or None
access_log_format = (
    'remote=%(h)s method=%(m)s path="%(U)s" status=%(s)s bytes=%(B)s '
    "duration_us=%(D)s request_id=%({x-request-id}i)s"
)
# Errors always go to stderr.
errorlog = "-"


# Prometheus metrics across workers (servicekit.metrics.multiprocess): the master empties
# PROMETHEUS_MULTIPROC_DIR before the first worker starts, and drops a dead worker's live
# gauges (in-flight requests) when gunicorn reaps it.
def on_starting(server: Any) -> None:
    path = multiprocess.directory()
    if path is not None:
        multiprocess.prepare_directory(path)


def child_exit(server: Any, worker: Any) -> None:
    multiprocess.mark_process_dead(worker.pid)
