"""`servelab bench` and `servelab report`: run a family's matrix, and render its report
again from saved results (a GPU machine's device run too)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import fields
from functools import partial
from pathlib import Path

from servelab.bench.device.report import write_device_report
from servelab.bench.device.results import RESULTS_NAME, is_device_run
from servelab.bench.errors import BenchError
from servelab.bench.plan.options import BenchOptions
from servelab.bench.run import render_report, results_path, run_bench, run_progress
from servelab.project import Project
from servelab.spec.family import families as all_families


def _each_family(project: Project, requested: list[str], write: Callable[[str], Path]) -> int:
    """Write the report of each family requested, else of every one in
    loadtests/families/; a BenchError is one clear line and exit status 2."""
    try:
        for family in requested or all_families(project):
            print(f"servelab: wrote {write(family)}", file=sys.stderr)
    except BenchError as error:
        print(f"servelab: {error}", file=sys.stderr)
        return 2
    return 0


def bench(args: argparse.Namespace) -> int:
    project = Project.find()
    options = BenchOptions(
        **{option.name: getattr(args, option.name) for option in fields(BenchOptions)}
    )
    try:
        # With several families, one estimate of the time left covers them all.
        names = args.family or all_families(project)
        progress = run_progress(project, names, args.quick, options=options)
    except BenchError as error:
        print(f"servelab: {error}", file=sys.stderr)
        return 2
    return _each_family(
        project,
        names,
        lambda family: run_bench(project, family, args.quick, options=options, progress=progress),
    )


def report(args: argparse.Namespace) -> int:
    """The families named, or every family that has saved results (a new family has none
    until its first run); a device run's JSON (`health-code.gpu`, or the file the GPU
    machine wrote) becomes docs/results/health-code.gpu.md."""
    project = Project.find()
    requested = args.family or _measured_families(project)
    return _each_family(project, requested, partial(_render, project))


def _render(project: Project, name: str) -> Path:
    saved = Path(name) if name.endswith(".json") else results_path(project, name)
    if is_device_run(saved):
        return write_device_report(saved, project)
    return render_report(project, name)


def _measured_families(project: Project) -> list[str]:
    measured = [
        family for family in all_families(project) if results_path(project, family).is_file()
    ]
    device = results_path(project, RESULTS_NAME)
    return [*measured, RESULTS_NAME] if is_device_run(device) else measured


def add_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    measure = commands.add_parser(
        "bench", help="run benchmark matrices and write docs/results/<family>.md"
    )
    measure.add_argument(
        "family", nargs="*", help="loadtests/families/<family>.toml (default: all)"
    )
    form = measure.add_mutually_exclusive_group()
    form.add_argument(
        "--quick", dest="quick", action="store_true", default=True, help="short cells (default)"
    )
    form.add_argument("--full", dest="quick", action="store_false", help="the write-ups' durations")
    measure.add_argument(
        "--workers",
        metavar="N,N,...|auto",
        help="worker counts for every variant that takes the matrix's (not those that fix "
        "their own); auto: 1, 2, 4 ... up to this machine's CPUs, and that count",
    )
    measure.add_argument(
        "--cpus",
        metavar="server=LIST,k6=LIST",
        help="pin the server and k6 to these CPUs in every cell (e.g. server=0-3,k6=4-7) "
        "instead of one CPU per worker for the server and the rest for k6",
    )
    measure.add_argument(
        "--target",
        metavar="URL",
        help="run only the load against a stack already up at URL (no local stack, no "
        "server CPU time); results go to <family>.<label>.json",
    )
    measure.add_argument(
        "--variant", help="with --target: the variant whose endpoints run (default: the first)"
    )
    measure.add_argument(
        "--payload-on-target",
        action="store_true",
        help="with --target: the target's server already holds the payload file",
    )
    measure.add_argument(
        "--on-disk",
        action="store_true",
        help="keep what the servers write (uploads, nginx's request bodies) on the project's "
        "disk, measuring its filesystem too, instead of a tmpfs (/dev/shm)",
    )
    measure.add_argument(
        "--label", help="write <family>.<label>.json/.md (default with --target: its host)"
    )
    measure.add_argument(
        "--out", type=Path, metavar="DIR", help="write the results there, not in docs/results"
    )
    measure.set_defaults(handler=bench)

    render = commands.add_parser("report", help="re-render reports from saved results")
    render.add_argument(
        "family",
        nargs="*",
        help="a family (default: all), or a saved run's .json (a --label or --out run): its "
        "report is written beside it",
    )
    render.set_defaults(handler=report)
