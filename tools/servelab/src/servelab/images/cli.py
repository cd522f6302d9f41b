"""`servelab images`: the base images compose.yaml and the Dockerfiles name, pulled or built
as stand-ins from Debian packages, in the engine the docker command line points at (where
`docker compose` runs the profiles) or, with `--engine private`, in the private engine the
container tests use."""

from __future__ import annotations

import argparse
import sys

from servelab.containers.current import current_engine
from servelab.containers.engine import (
    Docker,
    EngineError,
    EngineUnavailable,
    cache_dir,
    private_engine,
)
from servelab.images import stand_ins
from servelab.images.needs import advice, engine_needs
from servelab.images.stand_ins import DEFAULT_MIRROR, ImageOutcome, ImagesError, Say
from servelab.project import Project, ProjectError

HELP = (
    "pull the official base images or build stand-ins from Debian packages, in the Docker "
    "engine the docker command line points at (--engine private: the container tests' own)"
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
    images.add_argument(
        "--engine",
        choices=("current", "private"),
        default="current",
        help="current (default): the engine DOCKER_HOST or the docker context names, where "
        "`docker compose` runs; private: servelab's own dockerd (root), the container tests'",
    )
    images.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    def say(line: str) -> None:
        print(f"servelab: {line}", file=sys.stderr, flush=True)

    try:
        project = Project.find()
    except ProjectError as error:
        say(str(error))
        return 2
    needs: list[str] = []
    try:
        if args.engine == "private":
            outcomes = _into_private(args, project, say)
        else:
            engine = current_engine()
            say(f"Docker engine {engine.name}")
            outcomes = _ensure(engine, args, project, say)
            needs = advice(engine_needs(engine))
    except (EngineUnavailable, EngineError, ImagesError) as error:
        say(str(error))
        return 2
    if outcomes:
        for line in stand_ins.describe(outcomes):
            print(line, flush=True)
        total = sum(outcome.seconds for outcome in outcomes)
        say(f"{len(outcomes)} images ready in {total:.0f} s")
    # Last, so that the line to export is the one the command ends on (README: Running a
    # profile).
    for line in needs:
        say(line)
    return 0


def _ensure(
    engine: Docker, args: argparse.Namespace, project: Project, say: Say
) -> list[ImageOutcome]:
    return stand_ins.ensure_images(
        engine,
        project,
        say,
        rebuild=args.rebuild,
        refresh=args.refresh,
        try_pull=not args.no_pull,
        mirror=args.mirror,
    )


def _into_private(args: argparse.Namespace, project: Project, say: Say) -> list[ImageOutcome]:
    """The images in the private engine's data root; nothing (no engine started) while the
    stamp of its last run is current."""
    data_root = cache_dir(project.settings) / "docker"
    if not (args.rebuild or args.refresh) and stand_ins.up_to_date(project, data_root):
        say(f"base images up to date in {data_root}")
        return []
    with private_engine(data_root) as engine:
        say(f"private Docker engine (pid {engine.pid}, data root {data_root})")
        return _ensure(engine, args, project, say)
