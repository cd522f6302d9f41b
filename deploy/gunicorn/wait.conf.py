"""gunicorn settings for the wait service (compose: wait-gunicorn, wait-flask).

The command line names the worker class, as in the write-up (WEB_CONCURRENCY workers):
    gunicorn -c deploy/gunicorn/wait.conf.py -k uvicorn_worker.UvicornWorker \
        wait_service.main:app

bind, workers, the control socket and logging come from base.py; backlog (BACKLOG) too,
with the wait service's own default below.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # for base.py: see its docstring
from base import *  # noqa: F403
from base import env_int

# A burst of 1000 clients needs room for all of them in the listen queue: 4096,
# net.core.somaxconn's default since Linux 5.4.
backlog = env_int("BACKLOG", 4096)

# The write-up's `-t 60 --keep-alive=60`: a sync worker that sleeps through a long
# queue of requests is not a stuck worker.
timeout = 60
keepalive = 60
graceful_timeout = 10
