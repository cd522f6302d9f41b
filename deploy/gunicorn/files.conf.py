"""gunicorn config for services/files: a process manager around uvicorn workers.

    gunicorn --config deploy/gunicorn/files.conf.py files_service.main:app

Every value can be changed per deployment through the environment variables read below.
"""

import os

# Each worker is a full uvicorn event loop; gunicorn only supervises them
# (restarts on crash, graceful reloads on HUP). uvicorn.workers is deprecated in
# favour of the uvicorn-worker package.
worker_class = "uvicorn_worker.UvicornWorker"

# Same variables as the compose service and most PaaS: HOST/PORT to listen on.
bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"

# One worker per core is the usual start for async workers; the benchmark
# matrix sweeps this through WEB_CONCURRENCY.
workers = int(os.environ.get("WEB_CONCURRENCY", "1"))

# Pending connections the kernel queues while every worker is busy (a load test
# opens hundreds at once; the default 2048 is spelled out because it matters).
backlog = 2048

# Seconds an idle keep-alive connection stays open: uvicorn's own default, so the
# uvicorn and gunicorn profiles treat keep-alive clients alike (gunicorn's is 2).
keepalive = 5

# A worker whose heartbeat stops this long (a stuck event loop, not a slow request:
# a healthy loop beats every second however long its uploads take) is replaced.
timeout = 60

# On SIGTERM, in-flight uploads and downloads get this long to finish.
graceful_timeout = 30

# gunicorn 25+ opens a control socket at one path per user ($HOME/.gunicorn), which
# several gunicorn instances on one host (tests, the benchmark matrix) would fight
# over; nothing here uses gunicornc.
control_socket_disable = True

# Access logs cost measurable throughput in a benchmark; errors still go to stderr.
accesslog = None
errorlog = "-"
