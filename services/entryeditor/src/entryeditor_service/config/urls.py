"""URL configuration: /entryeditor/, /corpus/, health probes; JSON for every error."""

from __future__ import annotations

from django.urls import include, path

from entryeditor_service import health
from entryeditor_service.routes import route

urlpatterns = [
    route("healthz", health.healthz, "healthz"),
    route("readyz", health.readyz, "readyz"),
    path("corpus/", include("entryeditor_service.corpus.urls")),
    path("entryeditor/", include("entryeditor_service.entries.urls")),
]

# Django's own error views answer JSON too (DRF's handler is named in settings.py).
handler400 = "entryeditor_service.errors.bad_request"
handler403 = "entryeditor_service.errors.permission_denied"
handler404 = "entryeditor_service.errors.not_found"
handler500 = "entryeditor_service.errors.server_error"
