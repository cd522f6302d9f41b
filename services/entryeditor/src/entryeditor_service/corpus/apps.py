from __future__ import annotations

from django.apps import AppConfig


class CorpusConfig(AppConfig):
    name = "entryeditor_service.corpus"
    label = "corpus"
    verbose_name = "Corpus"

    def ready(self) -> None:
        from entryeditor_service import budget

        budget.register()
