"""gunicorn settings for the health-code service (compose: health-code-gunicorn).

The command line names the worker class and the number of workers, as in the write-up:
    gunicorn -c deploy/gunicorn/health-code.conf.py -w 2 -k uvicorn_worker.UvicornWorker \
        health_code_service.main:app
"""

import os

bind = f"{os.environ.get('HOST', '0.0.0.0')}:{os.environ.get('PORT', '8000')}"
backlog = int(os.environ.get("BACKLOG", "2048"))

# A worker loads its OCR models before it serves (tens of seconds on a slow disk), and
# under the async-blocking mode it answers nothing, not even the arbiter's heartbeat,
# while it queues 20 requests of a few hundred milliseconds each.
timeout = 120
graceful_timeout = 30
# ab sends every request on a new connection; other clients keep theirs.
keepalive = 5

accesslog = None
errorlog = "-"
