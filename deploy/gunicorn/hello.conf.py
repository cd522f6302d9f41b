"""gunicorn settings shared by the hello variants (compose: hello-gunicorn-*).

Each variant's command line names its worker class, workers and threads, e.g.
    gunicorn -c deploy/gunicorn/hello.conf.py -w 2 -k gthread --threads 2 \
        hello_service.flask_app:app
"""

import os

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"

# Connections the kernel queues before a worker accepts them: 400 clients connecting at
# once overflow a short queue (the write-up's connect errors). Linux caps the value at
# net.core.somaxconn (4096 by default since 5.4), so raise both together.
backlog = int(os.environ.get("BACKLOG", "4096"))

# Keep-alive connections stay open between requests (gthread, gevent and uvicorn workers;
# sync workers close after each response). Each open connection is a file descriptor:
# compose raises `ulimits: nofile` to match.
keepalive = 60
worker_connections = 4096
graceful_timeout = 10

accesslog = None
errorlog = "-"
