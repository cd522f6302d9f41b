"""Routes under /corpus/ (each with and without its trailing slash)."""

from __future__ import annotations

from entryeditor_service.compute import views as compute_views
from entryeditor_service.corpus import views
from entryeditor_service.routes import route

urlpatterns = [
    route(r"sentence/(?P<sentence_id>[0-9]{1,9})", views.sentence, "sentence"),
    route(
        r"sentence/(?P<sentence_id>[0-9]{1,9})/neighbors",
        compute_views.neighbors,
        "sentence-neighbors",
    ),
    route(r"statistics/get_instance", views.get_instance, "get-instance"),
    route(r"statistics/get_count", views.get_count, "get-count"),
    route(r"statistics/get_pmi", views.get_pmi, "get-pmi"),
]
