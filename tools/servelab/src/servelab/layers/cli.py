"""`servelab layers`: measure what each production layer costs per request, in-process, and
write docs/results/layers.md."""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import TextIO

from servelab.project import Project

SERVICES = ("hello", "files")


@contextlib.contextmanager
def _multiprocess_metrics() -> Iterator[None]:
    """prometheus_client in multiprocess mode, as the recipes run it: chosen when it is first
    imported, so before any service is."""
    if "prometheus_client" in sys.modules or os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        yield
        return
    with TemporaryDirectory(prefix="servelab-layers-metrics-") as folder:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = folder
        try:
            yield
        finally:
            del os.environ["PROMETHEUS_MULTIPROC_DIR"]


def _progress(stream: TextIO) -> Callable[[str], None]:
    """Progress lines to `stream` (stderr as it is now: the run sends the access log's away)."""

    def say(line: str) -> None:
        print(f"servelab: {line}", file=stream, flush=True)

    return say


def layers(args: argparse.Namespace) -> int:
    project = Project.find()
    output: Path = args.output or project.results / "layers.md"
    with _multiprocess_metrics():
        from servelab.layers.run import account_page

        text = account_page(
            args.service or list(SERVICES),
            rounds=args.rounds,
            scale=args.scale,
            command=shlex.join(["servelab", *sys.argv[1:]]),
            progress=_progress(sys.stderr),
        )
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text)
    print(f"servelab: wrote {output}", file=sys.stderr)
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    command = commands.add_parser(
        "layers",
        help="what each production layer (auth, limits, request ids, metrics, access log) "
        "costs per request, measured in-process",
    )
    command.add_argument(
        "--service",
        action="append",
        choices=SERVICES,
        help="measure this service's requests only (repeatable; default: all)",
    )
    command.add_argument(
        "--rounds", type=int, default=8, help="passes over every step (default: 8, at least 2)"
    )
    command.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="requests a round, as a share of the default (about a second a row): 0.1 for "
        "a quick look",
    )
    command.add_argument(
        "--output",
        type=Path,
        metavar="FILE",
        help="where to write (default: docs/results/layers.md)",
    )
    command.set_defaults(handler=layers)
