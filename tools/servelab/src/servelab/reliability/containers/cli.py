"""`servelab container-drill DRILL...|--all`: drills against the compose stack under
servelab's private Docker engine; their rows in docs/results/reliability.md."""

from __future__ import annotations

import argparse
import sys

from servelab.containers.compose import ComposeFailed
from servelab.containers.engine import EngineError, EngineUnavailable
from servelab.project import Project
from servelab.reliability.cli import failed
from servelab.reliability.containers.results import write_rows
from servelab.reliability.containers.run import engine, execute
from servelab.reliability.outage.run import LoadError
from servelab.spec.family import SpecError
from servelab.spec.reliability import ContainerDrill, every_reliability


def container_drills(project: Project) -> dict[str, ContainerDrill]:
    """Every family's container drills by name."""
    return {
        name: drill
        for spec in every_reliability(project).values()
        for name, drill in spec.container_drills.items()
    }


def container_drill(args: argparse.Namespace) -> int:
    project = Project.find()
    try:
        every = container_drills(project)
    except SpecError as error:
        return failed(error)
    names = list(every) if args.all else list(args.drill)
    if not names:
        return failed(f"name a drill, or give --all (known: {', '.join(every)})")
    if unknown := [name for name in names if name not in every]:
        return failed(f"no container drill {unknown[0]!r} (known: {', '.join(every)})")
    rows, errors = [], 0
    try:
        with engine(project) as docker:
            for name in names:
                print(f"servelab: container drill {name}", file=sys.stderr)
                try:
                    ran = execute(project, every[name], docker)
                except (ComposeFailed, LoadError) as error:
                    errors += failed(error)
                    continue
                print(f"servelab: {ran.row.verdict.value}: {ran.row.observed}", file=sys.stderr)
                rows.append(ran.row)
    except (EngineUnavailable, EngineError) as error:
        return failed(error)
    if rows:
        print(f"servelab: wrote {write_rows(project, rows)}", file=sys.stderr)
    return 2 if errors else 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    drill = commands.add_parser(
        "container-drill",
        help="kill, restart or take down containers of the compose stack under load in "
        "servelab's private Docker engine; rows in docs/results/reliability.md",
    )
    drill.add_argument("drill", nargs="*", help="a [container_drills.<drill>] of a family spec")
    drill.add_argument("--all", action="store_true", help="every container drill")
    drill.set_defaults(handler=container_drill)
