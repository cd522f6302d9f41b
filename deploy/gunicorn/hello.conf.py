"""gunicorn settings shared by the hello variants (compose: hello-gunicorn-*).

Each variant's command line names its worker class and threads, e.g.
    gunicorn -c deploy/gunicorn/hello.conf.py -k gthread --threads 2 \
        hello_service.flask_app:app

bind, the control socket and logging come from base.py; workers (WEB_CONCURRENCY) and
backlog (BACKLOG) too, with hello's own defaults below.
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
)

# Two processes unless WEB_CONCURRENCY says otherwise, as every hello variant.
workers = env_int("WEB_CONCURRENCY", 2)

# 400 clients connecting at once overflow a short listen queue (the write-up's connect
# errors): 4096, net.core.somaxconn's default since Linux 5.4.
backlog = env_int("BACKLOG", 4096)

# Keep-alive connections stay open between requests (gthread, gevent and uvicorn workers;
# sync workers close after each response). Each open connection is a file descriptor:
# compose raises `ulimits: nofile` to match.
keepalive = 60
worker_connections = 4096
graceful_timeout = 10
