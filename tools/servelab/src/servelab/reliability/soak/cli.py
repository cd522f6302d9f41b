"""`servelab soak FAMILY [--quick|--full] [--rate N]`."""

from __future__ import annotations

import argparse
import sys

from servelab.project import Project
from servelab.reliability.cli import add_form, failed
from servelab.reliability.outage.run import LoadError
from servelab.reliability.plan import announce, soaks_s
from servelab.reliability.soak.section import write_soak
from servelab.reliability.soak.targets import SoakError, soaks
from servelab.stack import StackError


def soak(args: argparse.Namespace) -> int:
    project = Project.find()
    try:
        families = list(soaks(project, args.family))
        print(
            announce(f"soaking {', '.join(families)}", soaks_s(families, args.form)),
            file=sys.stderr,
        )
        for family in families:
            path = write_soak(project, family, args.form, args.rate)
            print(f"servelab: wrote {path} (soak-{family})", file=sys.stderr)
    except (SoakError, StackError, LoadError) as error:
        return failed(error)
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "soak",
        help="run a family at half its measured capacity and check memory, fds, DB "
        "connections and temp files stay flat (docs/results/reliability.md)",
    )
    parser.add_argument(
        "family", nargs="*", help="families with a [soak] in their spec (default: all)"
    )
    add_form(parser, quick="1 minute (default)", full="10 minutes")
    parser.add_argument("--rate", type=int, help="requests/s instead of half the measured capacity")
    parser.set_defaults(handler=soak)
