"""gunicorn settings for the wait service (compose: wait-gunicorn, wait-flask).

The command line names the worker class and the number of workers, as in the write-up:
    gunicorn -c deploy/gunicorn/wait.conf.py -w 1 -k uvicorn_worker.UvicornWorker \
        wait_service.main:app
"""

import os

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"

# Connections the kernel queues before a worker accepts them. A burst of 1000 clients
# needs room for all of them; Linux caps it at net.core.somaxconn (4096 by default
# since 5.4), so both must be raised together.
backlog = int(os.environ.get("BACKLOG", "4096"))

# The write-up's `-t 60 --keep-alive=60`: a sync worker that sleeps through a long
# queue of requests is not a stuck worker.
timeout = 60
keepalive = 60
graceful_timeout = 10

accesslog = None
errorlog = "-"
