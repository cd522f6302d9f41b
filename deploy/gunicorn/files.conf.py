"""gunicorn config for services/files: a process manager around uvicorn workers.

    gunicorn --config deploy/gunicorn/files.conf.py files_service.main:app

bind (HOST/PORT), backlog (BACKLOG), workers (WEB_CONCURRENCY, one per core is the usual
start for async workers), the control socket and logging come from base.py.
"""

from deploy.gunicorn.base import (  # noqa: F401  (gunicorn reads these names from this module)
    access_log_format,
    accesslog,
    backlog,
    bind,
    child_exit,
    control_socket_disable,
    errorlog,
    forwarded_allow_ips,
    limit_request_line,
    on_starting,
    worker_tmp_dir,
    workers,
)

# Each worker is a full uvicorn event loop; gunicorn only supervises them
# (restarts on crash, graceful reloads on HUP). uvicorn.workers is deprecated in
# favour of the uvicorn-worker package.
worker_class = "uvicorn_worker.UvicornWorker"

# Seconds an idle keep-alive connection stays open: uvicorn's own default, so the
# uvicorn and gunicorn profiles treat keep-alive clients alike (gunicorn's is 2).
keepalive = 5

# A worker whose heartbeat stops this long (a stuck event loop, not a slow request:
# a healthy loop beats every second however long its uploads take) is replaced.
timeout = 60

# On SIGTERM, in-flight uploads and downloads get this long to finish.
graceful_timeout = 30
