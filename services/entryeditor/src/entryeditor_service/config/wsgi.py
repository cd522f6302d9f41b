"""WSGI entry point: `entryeditor_service.config.wsgi:application` (uWSGI, gunicorn)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

from entryeditor_service import dbmetrics
from servicekit.observe.wsgi import ObserveMiddleware

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "entryeditor_service.config.settings")
# Request ids, metrics (GET /metrics) and the JSON access log around Django; the route
# each request matched comes from servicekit.observe.django.RouteMiddleware (MIDDLEWARE).
application = ObserveMiddleware(get_wsgi_application())
# The database connections' use: open, in use, each query's time.
dbmetrics.install()
