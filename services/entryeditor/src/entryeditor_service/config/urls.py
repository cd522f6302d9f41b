"""URL configuration: /entryeditor/, /corpus/, health probes, the OpenAPI schema at
/api/schema/ (YAML, or JSON with ?format=json); JSON for every error."""

from __future__ import annotations

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from entryeditor_service import health
from entryeditor_service.routes import route

urlpatterns = [
    route("healthz", health.healthz, "healthz"),
    route("readyz", health.readyz, "readyz"),
    route("api/schema", SpectacularAPIView.as_view(), "schema"),
    path("corpus/", include("entryeditor_service.corpus.urls")),
    path("entryeditor/", include("entryeditor_service.entries.urls")),
]

# Django's own error views answer JSON too (DRF's handler is named in settings.py).
handler400 = "entryeditor_service.errors.bad_request"
handler403 = "entryeditor_service.errors.permission_denied"
handler404 = "entryeditor_service.errors.not_found"
handler500 = "entryeditor_service.errors.server_error"
