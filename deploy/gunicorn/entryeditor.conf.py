"""gunicorn (gthread workers) for the entry editor behind nginx (compose: entryeditor-gunicorn,
with entryeditor-gunicorn-nginx in front), the comparison variant of the uWSGI recipe:

    gunicorn -c deploy/gunicorn/entryeditor.conf.py entryeditor_service.wsgi:application

WEB_PROCESSES x WEB_THREADS as uWSGI's processes x threads, the same connection budget.
"""

import os

bind = f"unix:{os.environ['SOCKET_DIR']}/entryeditor-gunicorn.sock"
umask = 0o000  # the socket is shared with nginx's workers, another user

worker_class = "gthread"
workers = int(os.environ.get("WEB_PROCESSES", "4"))
threads = int(os.environ.get("WEB_THREADS", "4"))

# Load shedding as uWSGI does it: a short listen queue (LISTEN), and each worker accepts only
# as many connections as it has threads (gthread's default of 1000 would take every
# request in and queue it inside the worker). When the queue is full nginx's connect() fails
# at once and it answers a fast 503.
backlog = int(os.environ.get("LISTEN", "32"))
worker_connections = threads

# uWSGI's harakiri: a worker silent for longer is killed and replaced (nginx waits longer).
timeout = int(os.environ.get("HARAKIRI", "30"))
graceful_timeout = 10
# The write-up's max-requests, with jitter so workers do not restart together.
max_requests = int(os.environ.get("MAX_REQUESTS", "30000"))
max_requests_jitter = 100

accesslog = None
errorlog = "-"
