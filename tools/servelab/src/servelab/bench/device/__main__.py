"""`python -m servelab.bench.device bundle|run`: kept apart from the `servelab` command, whose
other commands import what the GPU machine does not have (schemathesis, the test kit)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from servelab.bench.device.bundle import BUNDLE_DIR, BundleError, build_bundle
from servelab.bench.device.plan import load_plan
from servelab.bench.device.run import Runner
from servelab.interrupts import stop_on_signals
from servelab.project import find_project_dir, work_dir
from servelab.spec.device import FORMS
from servelab.spec.family import SpecError


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="python -m servelab.bench.device",
        description="The health-code run on a machine with an NVIDIA GPU.",
    )
    commands = root.add_subparsers(dest="command", required=True)
    bundle = commands.add_parser("bundle", help="assemble what the GPU machine lacks")
    bundle.add_argument("--out", type=Path, help=f"the folder (default: {BUNDLE_DIR})")
    run = commands.add_parser("run", help="run the device matrix here")
    run.add_argument("--bundle", type=Path, help=f"the bundle (default: {BUNDLE_DIR})")
    run.add_argument("--out", type=Path, help="where the results go (default: .servelab/device)")
    run.add_argument("--form", choices=FORMS, default="device")
    run.add_argument(
        "--budget-s",
        type=float,
        default=480.0,
        help="start nothing that would end after this many seconds (default %(default)s)",
    )
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    project_dir = find_project_dir()
    try:
        with stop_on_signals():
            if args.command == "bundle":
                build_bundle(project_dir, args.out or project_dir / BUNDLE_DIR)
                return 0
            plan = load_plan(project_dir, args.form)
            runner = Runner(
                project_dir,
                plan,
                args.bundle or project_dir / BUNDLE_DIR,
                args.out or work_dir(project_dir, "device"),
                args.budget_s,
            )
            runner.run()
    except (BundleError, SpecError, OSError) as error:
        print(f"servelab device: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
