"""`servelab fuzz [FAMILY...]`: every bad input against each deploy variant of the families
(default: every family)."""

from __future__ import annotations

import argparse
import sys

from servelab.project import Project
from servelab.reliability.cli import add_form, failed
from servelab.reliability.fuzz.run import FuzzError, FuzzOptions, run_fuzz
from servelab.reliability.plan import announce, fuzz_s
from servelab.spec.family import SpecError
from servelab.spec.reliability import chosen
from servelab.stack import StackError


def fuzz(args: argparse.Namespace) -> int:
    options = FuzzOptions(args.examples, args.form == "quick", args.seed, args.seconds)
    project = Project.find()
    try:
        families = chosen(project, lambda spec: spec.fuzz, "fuzz", args.family)
        planned = fuzz_s(list(families.values()), options)
        print(announce(f"fuzzing {', '.join(families)}", planned), file=sys.stderr)
        for family in families.values():
            print(f"servelab: wrote {run_fuzz(project, family, options)}", file=sys.stderr)
    except (SpecError, FuzzError, StackError) as error:
        return failed(error)
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    fuzzing = commands.add_parser(
        "fuzz",
        help="every bad input against a family's deploy variants (schemathesis from the "
        "OpenAPI schema, and hand-written raw requests); write docs/results/reliability.md",
    )
    fuzzing.add_argument(
        "family", nargs="*", help="families with a [fuzz] in their spec (default: all)"
    )
    fuzzing.add_argument(
        "--examples", type=int, default=25, help="schemathesis examples per operation"
    )
    fuzzing.add_argument("--seed", type=int, default=1, help="schemathesis seed")
    fuzzing.add_argument(
        "--seconds",
        type=int,
        help="repeat schemathesis's phases until this many seconds a target have passed",
    )
    add_form(
        fuzzing,
        quick="schemathesis's phases once a target, 15 s slowloris (default)",
        full="schemathesis's phases repeated for 600 s a target, 60 s slowloris",
    )
    fuzzing.set_defaults(handler=fuzz)
