"""gunicorn settings for the wait service (compose: wait-gunicorn, wait-flask).

The command line names the worker class, as in the write-up (WEB_CONCURRENCY workers):
    gunicorn -c deploy/gunicorn/wait.conf.py -k uvicorn_worker.UvicornWorker \
        wait_service.main:app

bind, workers, the control socket and logging come from base.py; backlog (BACKLOG) too,
with the wait service's own default below.
"""

from deploy.gunicorn.base import (  # noqa: F401  (gunicorn reads these names from this module)
    access_log_format,
    accesslog,
    bind,
    child_exit,
    control_socket_disable,
    env_int,
    errorlog,
    forwarded_allow_ips,
    limit_request_line,
    on_starting,
    worker_tmp_dir,
    workers,
)

# A burst of 1000 clients needs room for all of them in the listen queue: 4096,
# net.core.somaxconn's default since Linux 5.4.
backlog = env_int("BACKLOG", 4096)

# The write-up's `-t 60 --keep-alive=60`: a sync worker that sleeps through a long
# queue of requests is not a stuck worker. A sync worker is also held by a client that
# sends slowly, up to `timeout`: it belongs behind nginx (deploy/compose/wait.yaml).
timeout = 60
keepalive = 60
graceful_timeout = 10
