"""`servelab probe NAME`: run one fault probe and write its reliability section."""

from __future__ import annotations

import argparse
import subprocess
import sys
from functools import partial

from servelab.bench.load.k6 import K6Error
from servelab.project import Project
from servelab.reliability.cli import failed
from servelab.reliability.faults.coldstart import DEFAULT_SECONDS
from servelab.reliability.faults.sections import NEEDS_ROOT, PROBES, run_probe, write_coldstart
from servelab.reliability.outage.run import LoadError
from servelab.reliability.plan import announce, probe_names, probes_s
from servelab.spec.family import SpecError
from servelab.spec.reliability import chosen
from servelab.stack import StackError


def probe(args: argparse.Namespace) -> int:
    unknown = sorted(set(args.probe) - set(PROBES))
    if unknown:
        return failed(f"no probe {', '.join(unknown)} (known: {', '.join(PROBES)})")
    if args.seconds <= 0:
        return failed("--seconds must be more than 0")
    project = Project.find()
    try:
        chosen(project, lambda spec: spec.coldstart, "coldstart", args.family or ())
    except SpecError as error:
        return failed(error)
    names = list(args.probe) or probe_names()
    for skipped in [name for name in PROBES if name not in names and not args.probe]:
        print(f"servelab: {skipped} skipped: {NEEDS_ROOT[skipped]}", file=sys.stderr)
    planned = probes_s(project, names, args.family or (), args.seconds)
    print(announce(f"probes {', '.join(names)}", planned), file=sys.stderr)
    # The cold start's writer with the command line's options.
    coldstart = partial(write_coldstart, families=args.family or (), seconds=args.seconds)
    try:
        for name in names:
            path = run_probe(project, name, coldstart if name == "coldstart" else None)
            print(f"servelab: wrote {path} ({name})", file=sys.stderr)
    except (StackError, LoadError, K6Error, subprocess.CalledProcessError) as error:
        return failed(error)
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "probe",
        help="inject a fault (dependencies, disk-full, aborts) or start cold under load "
        "(coldstart) and write its section of docs/results/reliability.md",
    )
    parser.add_argument("probe", nargs="*", help=f"{', '.join(PROBES)} (default: all)")
    parser.add_argument(
        "--family",
        action="append",
        help="coldstart: this family's variants alone (again for more; default: every family "
        "with a [coldstart])",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=DEFAULT_SECONDS,
        help=f"coldstart: how long the load runs after each start (default {DEFAULT_SECONDS:g})",
    )
    parser.set_defaults(handler=probe)
