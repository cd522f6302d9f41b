from __future__ import annotations

from django.apps import AppConfig


class EntriesConfig(AppConfig):
    name = "entryeditor_service.entries"
    label = "entries"
    verbose_name = "Entries"
