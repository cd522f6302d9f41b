"""Routes under /entryeditor/ (each with and without its trailing slash)."""

from __future__ import annotations

from entryeditor_service.entries import views
from entryeditor_service.routes import route

# Ids start at 1 (MySQL refuses 0 for an auto-increment key): /0 is no entry, a 404.
ID = r"(?P<entry_id>[1-9][0-9]{0,8})"
OTHER_ID = r"(?P<other_id>[1-9][0-9]{0,8})"

urlpatterns = [
    route(r"entryeditor", views.entry_list, "entry-list"),
    route(rf"entryeditor/{ID}", views.entry_detail, "entry-detail"),
    route(rf"entryeditor/{ID}/execute", views.entry_execute, "entry-execute"),
    route(rf"entryeditor/{ID}/init", views.entry_init, "entry-init"),
    route(rf"entryeditor/{ID}/diff/{OTHER_ID}", views.entry_diff, "entry-diff"),
]
