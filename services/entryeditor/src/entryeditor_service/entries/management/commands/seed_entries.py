"""`entryeditor-manage seed_entries [--count N]`: the demo entries (after load_corpus)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from entryeditor_service.corpus.models import CorpusLoad
from entryeditor_service.entries import seed
from entryeditor_service.entries.models import Entry


class Command(BaseCommand):
    help = "Create (or reset) demo entries 1..N from the corpus, with the write-up's ids."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--count", type=int, default=60, help="entries 1..N (at least 51)")

    def handle(self, *args: Any, **options: Any) -> None:
        count = options["count"]
        if count < max(seed.DEMO):
            raise CommandError(f"--count must be at least {max(seed.DEMO)} (the demo ids)")
        if not CorpusLoad.objects.exists():
            raise CommandError("no corpus loaded: run `entryeditor-manage load_corpus` first")
        ids = seed.seed(count, self.stdout.write)
        self.stdout.write(
            self.style.SUCCESS(f"Seeded {len(ids)} entries; {Entry.objects.count()} in all")
        )
