"""`servelab outage DRILL|--kind KIND|--all`: each drill's report and its reliability
section."""

from __future__ import annotations

import argparse
import sys

from servelab.project import Project
from servelab.reliability.cli import failed
from servelab.reliability.outage.drill import KINDS, DrillError
from servelab.reliability.outage.results import drill_names, write_drill
from servelab.reliability.outage.run import LoadError
from servelab.reliability.plan import announce, drills_s
from servelab.stack import StackError


def outage(args: argparse.Namespace) -> int:
    project = Project.find()
    names = list(args.drill)
    if args.all or args.kind:
        names += drill_names(project, args.kind)
    if not names:
        return failed("name a drill, or give --kind or --all")
    try:
        planned = drills_s(project, names)
    except DrillError as error:
        return failed(error)
    print(announce(f"{len(names)} drills", planned), file=sys.stderr)
    errors = 0
    for name in names:
        try:
            report = write_drill(project, name)
        except (DrillError, LoadError, StackError) as error:
            errors += failed(error)
            continue
        print(f"servelab: wrote {report}", file=sys.stderr)
    return 2 if errors else 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    drill = commands.add_parser(
        "outage",
        help="kill, stop, restart or reload part of a stack under constant load; "
        "write docs/results/outage-<drill>.md",
    )
    drill.add_argument("drill", nargs="*", help="a [drills.<drill>] of loadtests/families/*.toml")
    drill.add_argument("--kind", choices=KINDS, help="every drill of this kind")
    drill.add_argument("--all", action="store_true", help="every drill")
    drill.set_defaults(handler=outage)
