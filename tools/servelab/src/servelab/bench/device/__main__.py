"""`python -m servelab.bench.device bundle|run`: kept apart from the `servelab` command, whose
other commands import what the GPU machine does not have (schemathesis, the test kit)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from servelab.bench.device.bundle import BUNDLE_DIR, BundleError, build_bundle
from servelab.bench.device.plan import load_plan
from servelab.bench.device.results import RESULTS_NAME, load_device_run
from servelab.bench.device.run import BUDGET_S, EVAL_RESERVE_S, Runner
from servelab.bench.device.timeplan import render, time_plan
from servelab.interrupts import stop_on_signals
from servelab.project import Project
from servelab.spec.device import FORMS
from servelab.spec.family import SpecError


def parser() -> argparse.ArgumentParser:
    about = "The health-code run on a machine with an NVIDIA GPU."
    root = argparse.ArgumentParser(prog="python -m servelab.bench.device", description=about)
    commands = root.add_subparsers(dest="command", required=True)
    bundle = commands.add_parser("bundle", help="assemble what the GPU machine lacks")
    bundle.add_argument("--out", type=Path, help=f"the folder (default: {BUNDLE_DIR})")
    run = commands.add_parser("run", help="run the device matrix here")
    run.add_argument("--bundle", type=Path, help=f"the bundle (default: {BUNDLE_DIR})")
    run.add_argument("--out", type=Path, help="where the results go (default: .servelab/device)")
    run.add_argument("--form", choices=FORMS, default="device")
    budget = "start nothing that would end after this many seconds (default %(default)s)"
    run.add_argument("--budget-s", type=float, default=BUDGET_S, help=budget)
    timed = commands.add_parser("plan", help="estimate the run's time plan, running nothing")
    timed.add_argument("--form", choices=FORMS, default="device")
    timed.add_argument("--cpus", type=int, default=16, help="the machine's CPUs (default 16)")
    timed.add_argument(
        "--from",
        dest="earlier",
        type=Path,
        help="an earlier run's results to take its rates from (default: the committed one, "
        "docs/results/health-code.gpu.json)",
    )
    timed.add_argument("--budget-s", type=float, default=BUDGET_S)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    project = Project.find()
    try:
        with stop_on_signals():
            if args.command == "bundle":
                build_bundle(project, args.out or project.root / BUNDLE_DIR)
                return 0
            if args.command == "plan":
                earlier = args.earlier or project.results / f"{RESULTS_NAME}.json"
                found = load_device_run(earlier) if earlier.is_file() else None
                timed = time_plan(load_plan(project, args.form), args.cpus, found)
                print(render(timed, args.budget_s, EVAL_RESERVE_S))
                return 0
            bundle = args.bundle or project.root / BUNDLE_DIR
            out = args.out or project.work("device")
            Runner(project, load_plan(project, args.form), bundle, out, args.budget_s).run()
    except (BundleError, SpecError, OSError) as error:
        print(f"servelab device: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
