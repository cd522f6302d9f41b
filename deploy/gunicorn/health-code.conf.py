"""gunicorn settings for the health-code service (compose: health-code-gunicorn).

The command line names the worker class, as in the write-up (WEB_CONCURRENCY workers):
    gunicorn -c deploy/gunicorn/health-code.conf.py -k uvicorn_worker.UvicornWorker \
        health_code_service.main:app

bind, backlog (BACKLOG, 2048), workers, the control socket and logging come from base.py.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for base.py: see its docstring
from base import *  # noqa: F403

# A worker loads its OCR models before it serves (tens of seconds on a slow disk), and
# under the async-blocking mode it answers nothing, not even the arbiter's heartbeat,
# while it queues 20 requests of a few hundred milliseconds each.
timeout = 120
graceful_timeout = 30
# ab sends every request on a new connection; other clients keep theirs.
keepalive = 5
