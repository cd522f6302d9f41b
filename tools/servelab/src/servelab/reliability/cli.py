"""`servelab reliability`: the saved sections joined into docs/results/reliability.md."""

from __future__ import annotations

import argparse
import sys

from servelab.bench.progress import clock
from servelab.project import Project
from servelab.reliability.plan import announce, suite_plan
from servelab.reliability.report import write_reliability
from servelab.reliability.soak.run import FORMS as SOAK_FORMS


def reliability(args: argparse.Namespace) -> int:
    project = Project.find()
    if args.plan:
        phases = suite_plan(project, args.plan)
        each = ", ".join(f"{name} {clock(seconds)}" for name, seconds in phases.items())
        print(announce(f"the reliability suite ({each})", sum(phases.values())), file=sys.stderr)
        return 0
    print(f"servelab: wrote {write_reliability(project)}", file=sys.stderr)
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    joined = commands.add_parser(
        "reliability",
        help="join the saved reliability sections into docs/results/reliability.md",
    )
    joined.add_argument(
        "--plan",
        choices=tuple(SOAK_FORMS),
        metavar="quick|full",
        help="say how long make reliability takes, phase by phase, in its quick or full form "
        "(FORM=full: 10-minute soaks, schema fuzzing repeated for 60 s a target; nothing is "
        "run or written)",
    )
    joined.set_defaults(handler=reliability)


def failed(error: object) -> int:
    """Say why a command could not run; its exit status."""
    print(f"servelab: {error}", file=sys.stderr)
    return 2


def add_form(parser: argparse.ArgumentParser, quick: str, full: str) -> None:
    """--quick (the default) or --full, as `args.form`."""
    form = parser.add_mutually_exclusive_group()
    form.add_argument(
        "--quick", dest="form", action="store_const", const="quick", default="quick", help=quick
    )
    form.add_argument("--full", dest="form", action="store_const", const="full", help=full)
