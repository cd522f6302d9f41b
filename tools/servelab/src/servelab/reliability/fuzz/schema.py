"""Property-based requests from a target's OpenAPI schema: schemathesis's `run` with every
check (no 5xx, responses that match the schema, documented status codes, content types and
Allow headers, schema-valid requests accepted and invalid ones refused), every operation
tested on past its first failure, its JSON report read back.

Bounded in examples per operation: each phase runs once. Given `--max-time`, schemathesis
instead repeats its generating phases until that time has passed, whatever the examples
asked (its benchmarking guide: "Under --max-time the fuzzing and stateful phases keep
drawing new cases until the budget is spent")."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from servelab.reliability.fuzz.raw import ANSWER_TIMEOUT_S

# How long past its own time budget schemathesis may run before it counts as hung.
_GRACE_S = 120.0
# How long a run of each phase once may take before it counts as hung (the slowest target,
# the entry editor, took 28-42 s on the 2-CPU development VM).
_ONE_PASS_LIMIT_S = 600.0


class SchemaRunError(RuntimeError):
    """schemathesis could not run (no schema at the URL, a crash) or ran past its limit: no
    report to read."""


@dataclass(frozen=True)
class SchemaOutcome:
    generated: int
    operations: int
    seconds: float
    # (failure code and title, count, operations) for every kind of failure found.
    failures: list[tuple[str, int, list[str]]]
    errors: list[tuple[str, int]]

    @property
    def failure_count(self) -> int:
        return sum(count for _, count, _ in self.failures)

    @property
    def server_errors(self) -> int:
        return sum(count for code, count, _ in self.failures if "Server error" in code)


def schemathesis_argv(
    schema_url: str, token: str, examples: int, max_time_s: int | None, seed: int, report: Path
) -> list[str]:
    """`max_time_s`: repeat the phases until then; None: each phase once."""
    repeat = [] if max_time_s is None else ["--max-time", str(max_time_s)]
    return [
        *(sys.executable, "-m", "schemathesis.cli", "run", schema_url, "--checks", "all"),
        *("--max-examples", str(examples), *repeat, "--continue-on-failure"),
        *("--request-timeout", str(ANSWER_TIMEOUT_S), "--seed", str(seed), "--workers", "1"),
        *("--header", f"Authorization: Bearer {token}", "--suppress-health-check", "all"),
        *("--report", "json", "--report-json-path", str(report), "--no-color"),
    ]


def run_schemathesis(
    argv: list[str], report: Path, max_time_s: int | None, log: Path
) -> SchemaOutcome:
    report.unlink(missing_ok=True)
    limit_s = _ONE_PASS_LIMIT_S if max_time_s is None else max_time_s + _GRACE_S
    # In the log's directory: schemathesis keeps a cache (.schemathesis/) where it runs.
    with log.open("w") as out:
        try:
            subprocess.run(
                argv,
                cwd=log.parent,
                stdout=out,
                stderr=subprocess.STDOUT,
                timeout=limit_s,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise SchemaRunError(
                f"schemathesis still ran after {limit_s:g} s: counted as hung (its output: {log})"
            ) from None
    if not report.is_file():
        raise SchemaRunError(f"schemathesis wrote no report (its output: {log})")
    return read_report(json.loads(report.read_text()))


def read_report(raw: dict[str, Any]) -> SchemaOutcome:
    return SchemaOutcome(
        generated=int(raw["test_cases"]["generated"]),
        operations=int(raw["operations"]["tested"]),
        seconds=float(raw["running_time"]),
        failures=[
            (f"{f['code']} {f['title']}", int(f["count"]), [str(o) for o in f["operations"]])
            for f in raw["failures"]
        ],
        errors=[(str(e["title"]), int(e["count"])) for e in raw["errors"]],
    )
