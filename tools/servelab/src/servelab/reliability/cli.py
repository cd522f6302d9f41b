"""`servelab reliability`: the saved sections joined into docs/results/reliability.md."""

from __future__ import annotations

import argparse
import sys

from servelab.project import find_project_dir
from servelab.reliability.report import write_reliability


def reliability(args: argparse.Namespace) -> int:
    print(f"servelab: wrote {write_reliability(find_project_dir())}", file=sys.stderr)
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    joined = commands.add_parser(
        "reliability",
        help="join the saved reliability sections into docs/results/reliability.md",
    )
    joined.set_defaults(handler=reliability)
