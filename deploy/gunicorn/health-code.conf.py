"""gunicorn settings for the health-code service (compose: health-code-gunicorn).

The command line names the worker class, as in the write-up (WEB_CONCURRENCY workers):
    gunicorn -c deploy/gunicorn/health-code.conf.py -k uvicorn_worker.UvicornWorker \
        health_code_service.main:app

bind, backlog (BACKLOG, 2048), workers, the control socket and logging come from base.py.
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

# A worker loads its OCR models before it serves (tens of seconds on a slow disk), and
# under the async-blocking mode it answers nothing, not even the arbiter's heartbeat,
# while it queues 20 requests of a few hundred milliseconds each.
timeout = 120
graceful_timeout = 30
# ab sends every request on a new connection; other clients keep theirs.
keepalive = 5
