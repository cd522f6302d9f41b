"""The `servelab` command line."""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from servelab.bench import BenchError, BenchOptions, render_report, results_path, run_bench
from servelab.bench.compare import NOISE, check_comparable
from servelab.bench.compare import render as render_comparison
from servelab.bench.matrix import load_matrix
from servelab.bench.results import load_run
from servelab.containers import cli as containers_cli
from servelab.device.report import write_device_report
from servelab.device.results import RESULTS_NAME, is_device_run
from servelab.faults import cli as faults_cli
from servelab.fuzz import FuzzError, FuzzOptions, run_fuzz
from servelab.interrupts import stop_on_signals
from servelab.outage import KINDS, DrillError, drill_names, write_drill
from servelab.project import families as all_families
from servelab.project import find_project_dir
from servelab.reliability import write_reliability
from servelab.soak import cli as soak_cli
from servelab.stack import Stack, StackError, sessions


def up(args: argparse.Namespace) -> int:
    project_dir = find_project_dir()
    stack = Stack(args.profile, only=args.only, publish=not args.any_port, project_dir=project_dir)
    record = None
    try:
        with stack:
            record = sessions.record(
                project_dir, stack.profiles, {n: r.pgid for n, r in stack.running.items()}
            )
            for name, address in stack.attached.items():
                print(f"servelab: {name} is this machine's server at {address}", file=sys.stderr)
            for name, running in stack.running.items():
                if running.process.poll() == 0:
                    print(f"servelab: {name} ran to completion", file=sys.stderr)
                    continue
                where = f"  {stack.url(name)}" if name in stack.ports else ""
                print(f"servelab: {name} is up{where}", file=sys.stderr)
            print(
                f"servelab: writes need 'Authorization: Bearer {stack.api_token}'", file=sys.stderr
            )
            print("servelab: Ctrl-C (or `servelab down`) stops everything", file=sys.stderr)
            threading.Event().wait()
    except KeyboardInterrupt:
        print("servelab: stopping", file=sys.stderr)
    except StackError as error:
        print(f"servelab: {error}", file=sys.stderr)
        return 1
    finally:
        if record is not None:
            record.unlink(missing_ok=True)
    return 0


def down(args: argparse.Namespace) -> int:
    stopped = sessions.stop_all(find_project_dir())
    for session in stopped:
        print(f"servelab: stopped {'/'.join(session.profiles)} (runner pid {session.pid})")
    if not stopped:
        print("servelab: nothing running")
    return 0


def families(requested: list[str]) -> list[str]:
    """The requested benchmark families, or every loadtests/matrix/*.toml."""
    if requested:
        return requested
    return all_families(find_project_dir())


def _each_family(requested: list[str], write: Callable[[str], Path]) -> int:
    """Write each family's report; a BenchError is one clear line and exit status 2."""
    try:
        for family in families(requested):
            print(f"servelab: wrote {write(family)}", file=sys.stderr)
    except BenchError as error:
        print(f"servelab: {error}", file=sys.stderr)
        return 2
    return 0


def bench(args: argparse.Namespace) -> int:
    options = BenchOptions(
        workers=args.workers,
        cpus=args.cpus,
        target=args.target,
        variant=args.variant,
        payload_on_target=args.payload_on_target,
        label=args.label,
        out=args.out,
        on_disk=args.on_disk,
    )
    return _each_family(args.family, lambda family: run_bench(family, args.quick, options=options))


def report(args: argparse.Namespace) -> int:
    """The families named, or every family that has saved results (a new family has none
    until its first run); a device run's JSON (`health-code.gpu`, or the file the GPU
    machine wrote) becomes docs/results/health-code.gpu.md."""
    requested = args.family or _measured_families()
    return _each_family(requested, _render)


def _render(name: str) -> Path:
    project_dir = find_project_dir()
    saved = Path(name) if name.endswith(".json") else results_path(project_dir, name)
    if is_device_run(saved):
        return write_device_report(saved, project_dir)
    return render_report(name)


def _measured_families() -> list[str]:
    project_dir = find_project_dir()
    measured = [
        family
        for family in all_families(project_dir)
        if results_path(project_dir, family).is_file()
    ]
    device = results_path(project_dir, RESULTS_NAME)
    return [*measured, RESULTS_NAME] if is_device_run(device) else measured


def compare(args: argparse.Namespace) -> int:
    try:
        a, b = load_run(args.a), load_run(args.b)
        check_comparable(a, b)
        matrix = load_matrix(find_project_dir(), a.family)
        print(render_comparison(matrix, a, b, noise=args.noise, markdown=args.markdown), end="")
    except (BenchError, OSError, ValueError, KeyError, TypeError) as error:
        print(f"servelab: {error}", file=sys.stderr)
        return 2
    return 0


def outage(args: argparse.Namespace) -> int:
    project_dir = find_project_dir()
    names = list(args.drill)
    if args.all or args.kind:
        names += drill_names(project_dir, args.kind)
    if not names:
        print("servelab: name a drill, or give --kind or --all", file=sys.stderr)
        return 2
    failed = 0
    for name in names:
        try:
            report = write_drill(name, project_dir=project_dir)
        except (DrillError, StackError) as error:
            print(f"servelab: {error}", file=sys.stderr)
            failed += 1
            continue
        print(f"servelab: wrote {report}", file=sys.stderr)
    return 2 if failed else 0


def fuzz(args: argparse.Namespace) -> int:
    options = FuzzOptions(examples=args.examples, quick=args.quick, seed=args.seed)
    try:
        for family in args.family:
            print(
                f"servelab: wrote {run_fuzz(find_project_dir(), family, options)}", file=sys.stderr
            )
    except (FuzzError, StackError) as error:
        print(f"servelab: {error}", file=sys.stderr)
        return 2
    return 0


def reliability(args: argparse.Namespace) -> int:
    print(f"servelab: wrote {write_reliability(find_project_dir())}", file=sys.stderr)
    return 0


def parser() -> argparse.ArgumentParser:
    root = argparse.ArgumentParser(
        prog="servelab", description="Run compose.yaml profiles locally and benchmark them."
    )
    commands = root.add_subparsers(dest="command", required=True)

    run = commands.add_parser("up", help="start a profile's services as local processes")
    run.add_argument("--profile", "-p", action="append", required=True, help="compose profile")
    run.add_argument("--only", action="append", metavar="SERVICE", help="start only this service")
    run.add_argument(
        "--any-port",
        action="store_true",
        help="listen on free ports instead of the published ones",
    )
    run.set_defaults(handler=up)

    stop = commands.add_parser("down", help="stop every stack `servelab up` started")
    stop.set_defaults(handler=down)

    measure = commands.add_parser(
        "bench", help="run benchmark matrices and write docs/results/<family>.md"
    )
    measure.add_argument("family", nargs="*", help="loadtests/matrix/<family>.toml (default: all)")
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

    pair = commands.add_parser(
        "compare",
        help="two saved runs of one family side by side, cell by cell and ratio by ratio",
    )
    pair.add_argument("a", type=Path, metavar="A.json")
    pair.add_argument("b", type=Path, metavar="B.json")
    pair.add_argument(
        "--noise",
        type=float,
        default=NOISE,
        help="flag figures whose B/A is further than this from 1 (default %(default)s: the "
        "spread between two runs of the same quick command)",
    )
    pair.add_argument("--markdown", action="store_true", help="print Markdown tables")
    pair.set_defaults(handler=compare)

    drill = commands.add_parser(
        "outage",
        help="kill, stop, restart or reload part of a stack under constant load; "
        "write docs/results/outage-<drill>.md",
    )
    drill.add_argument("drill", nargs="*", help="loadtests/outage/<drill>.toml")
    drill.add_argument("--kind", choices=KINDS, help="every drill of this kind")
    drill.add_argument("--all", action="store_true", help="every drill")
    drill.set_defaults(handler=outage)

    fuzzing = commands.add_parser(
        "fuzz",
        help="every bad input against a family's deploy variants (schemathesis from the "
        "OpenAPI schema, and hand-written raw requests); write docs/results/reliability.md",
    )
    fuzzing.add_argument("family", nargs="+", help="files, entryeditor, health-code, wait, hello")
    fuzzing.add_argument(
        "--examples", type=int, default=25, help="schemathesis examples per operation"
    )
    fuzzing.add_argument("--seed", type=int, default=1, help="schemathesis seed")
    fuzz_form = fuzzing.add_mutually_exclusive_group()
    fuzz_form.add_argument(
        "--quick",
        dest="quick",
        action="store_true",
        default=True,
        help="60 s of schema cases a target, 15 s slowloris (default)",
    )
    fuzz_form.add_argument(
        "--full", dest="quick", action="store_false", help="600 s a target, 60 s slowloris"
    )
    fuzzing.set_defaults(handler=fuzz)

    joined = commands.add_parser(
        "reliability",
        help="join the saved reliability sections into docs/results/reliability.md",
    )
    joined.set_defaults(handler=reliability)

    containers_cli.add_parser(commands)
    faults_cli.add_parser(commands)
    soak_cli.add_parser(commands)
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    with stop_on_signals():
        try:
            return int(args.handler(args))
        except KeyboardInterrupt:
            print("servelab: interrupted; the servers it started are stopped", file=sys.stderr)
            return 130


if __name__ == "__main__":
    sys.exit(main())
