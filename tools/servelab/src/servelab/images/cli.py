"""`servelab images`: the base images compose.yaml and the Dockerfiles name, pulled or built
as stand-ins from Debian packages, in the private engine the container tests use."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from servelab.containers.engine import EngineError, EngineUnavailable, cache_dir, private_engine
from servelab.images.stand_ins import (
    DEFAULT_MIRROR,
    ImagesError,
    describe,
    ensure_images,
    up_to_date,
)
from servelab.project import ProjectError, find_project_dir

HELP = (
    "pull the official base images or build stand-ins from Debian packages "
    "(in the private Docker engine the container tests use)"
)


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    configure(commands.add_parser("images", help=HELP))


def configure(images: argparse.ArgumentParser) -> None:
    """The command's options and handler, on its own parser or as a subcommand."""
    images.add_argument(
        "--rebuild", action="store_true", help="build every stand-in again (layer cache kept)"
    )
    images.add_argument(
        "--refresh",
        action="store_true",
        help="debootstrap anew and build without the layer cache (Debian's latest updates)",
    )
    images.add_argument(
        "--no-pull", action="store_true", help="build stand-ins without trying the registries"
    )
    images.add_argument(
        "--mirror", default=DEFAULT_MIRROR, help=f"Debian mirror ({DEFAULT_MIRROR})"
    )
    images.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    def say(line: str) -> None:
        print(f"servelab: {line}", file=sys.stderr, flush=True)

    data_root = cache_dir() / "docker"
    try:
        project = find_project_dir(Path.cwd())
    except ProjectError as error:
        say(str(error))
        return 2
    if not (args.rebuild or args.refresh) and up_to_date(project, data_root):
        print(f"servelab: base images up to date in {data_root}", file=sys.stderr)
        return 0
    try:
        with private_engine(data_root) as engine:
            say(f"private Docker engine (pid {engine.pid}, data root {data_root})")
            outcomes = ensure_images(
                engine,
                project,
                cache_dir(),
                say,
                rebuild=args.rebuild,
                refresh=args.refresh,
                try_pull=not args.no_pull,
                mirror=args.mirror,
            )
    except (EngineUnavailable, EngineError, ImagesError) as error:
        say(str(error))
        return 2
    for line in describe(outcomes):
        print(line)
    total = sum(outcome.seconds for outcome in outcomes)
    say(f"{len(outcomes)} images ready in {total:.0f} s")
    return 0
