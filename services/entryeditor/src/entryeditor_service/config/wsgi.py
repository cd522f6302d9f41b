"""WSGI entry point: `entryeditor_service.config.wsgi:application` (uWSGI, gunicorn)."""

from __future__ import annotations

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "entryeditor_service.config.settings")
application = get_wsgi_application()
