"""Routes under /entryeditor/ (each with and without its trailing slash)."""

from __future__ import annotations

from entryeditor_service.entries import views
from entryeditor_service.routes import route

ID = r"(?P<entry_id>[0-9]{1,9})"

urlpatterns = [
    route(r"entryeditor", views.entry_list, "entry-list"),
    route(rf"entryeditor/{ID}", views.entry_detail, "entry-detail"),
    route(rf"entryeditor/{ID}/execute", views.entry_execute, "entry-execute"),
    route(rf"entryeditor/{ID}/init", views.entry_init, "entry-init"),
    route(rf"entryeditor/{ID}/diff/(?P<other_id>[0-9]{{1,9}})", views.entry_diff, "entry-diff"),
]
