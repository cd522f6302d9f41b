"""`servelab probe NAME`: run one fault probe and write its reliability section."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from servelab.project import find_project_dir
from servelab.reliability.probe.load import LoadError
from servelab.reliability.probe.sections import PROBES, run_probe
from servelab.stack import StackError

# Probes that only root can run, and why; `servelab probe` with no name skips them elsewhere.
_NEEDS_ROOT = {"disk-full": "it mounts a tmpfs under the files store, which needs root"}


def probe(args: argparse.Namespace) -> int:
    unknown = sorted(set(args.probe) - set(PROBES))
    if unknown:
        print(
            f"servelab: no probe {', '.join(unknown)} (known: {', '.join(PROBES)})", file=sys.stderr
        )
        return 2
    names = list(args.probe) or [
        name for name in PROBES if name not in _NEEDS_ROOT or os.geteuid() == 0
    ]
    for skipped in [name for name in PROBES if name not in names and not args.probe]:
        print(f"servelab: {skipped} skipped: {_NEEDS_ROOT[skipped]}", file=sys.stderr)
    try:
        for name in names:
            path = run_probe(find_project_dir(), name)
            print(f"servelab: wrote {path} ({name})", file=sys.stderr)
    except (StackError, LoadError, subprocess.CalledProcessError) as error:
        print(f"servelab: {error}", file=sys.stderr)
        return 2
    return 0


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "probe",
        help="inject a fault (dependencies, disk-full, aborts) and write its section of "
        "docs/results/reliability.md",
    )
    parser.add_argument("probe", nargs="*", help=f"{', '.join(PROBES)} (default: all)")
    parser.set_defaults(handler=probe)
