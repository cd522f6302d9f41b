"""gunicorn (gthread workers) for the entry editor behind nginx (compose: entryeditor-gunicorn,
with entryeditor-gunicorn-nginx in front), the comparison variant of the uWSGI recipe:

    gunicorn -c deploy/gunicorn/entryeditor.conf.py entryeditor_service.config.wsgi:application

WEB_CONCURRENCY x WEB_THREADS as uWSGI's processes x threads, the same connection budget.
The control socket and logging come from base.py.
"""

import os

from deploy.gunicorn.base import (  # noqa: F401  (gunicorn reads these names from this module)
    access_log_format,
    accesslog,
    child_exit,
    control_socket_disable,
    env_int,
    errorlog,
    forwarded_allow_ips,
    limit_request_line,
    on_starting,
    worker_tmp_dir,
)

# The unix socket nginx passes requests to, and HTTP for Prometheus on the private network
# (GET /metrics; not published, and nginx refuses /metrics on the public side). The socket's
# name is short: a unix socket's path must fit in 107 bytes, and the local runner's volumes
# lie deep in the checkout (.servelab/bench/<family>/<run>/volumes/...).
bind = [
    f"unix:{os.environ['SOCKET_DIR']}/gunicorn.sock",
    f"{os.environ['SCRAPE_HOST']}:{os.environ['SCRAPE_PORT']}",
]
umask = 0o000  # the socket is shared with nginx's workers, another user

worker_class = "gthread"
workers = env_int("WEB_CONCURRENCY", 4)
threads = env_int("WEB_THREADS", 4)

# Load shedding as uWSGI does it: a bounded listen queue (LISTEN, 1024: a cold start's
# first seconds at 200 requests/s, deploy/uwsgi/entryeditor.ini), and each worker accepts
# only as many connections as it has threads (gthread's default of 1000 would take every
# request in and queue it inside the worker). When the queue is full nginx's connect() fails
# at once and it answers a fast 503.
backlog = env_int("LISTEN", 1024)
worker_connections = threads

# uWSGI's harakiri: a worker silent for longer is killed and replaced (nginx waits longer).
timeout = env_int("HARAKIRI", 30)
graceful_timeout = 10
# The write-up's max-requests, with jitter so workers do not restart together.
max_requests = env_int("MAX_REQUESTS", 30000)
max_requests_jitter = 100
