"""Run one of loadtests/*.js in a test and read back what it measured (its JSON summary,
the text it printed, its exit status)."""

from __future__ import annotations

import json
import re
import resource
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from servelab.bench.load.k6 import k6_argv, k6_binary
from servelab.project import Project


@dataclass(frozen=True)
class K6Outcome:
    returncode: int
    summary: dict[str, Any]  # empty when k6 could not write it (see run_k6's open_files)
    output: str

    def measured(self, metric: str) -> dict[str, float]:
        """The values of `metric` in the measured phase."""
        values: dict[str, float] = self.summary["metrics"][f"{metric}{{phase:measure}}"]["values"]
        return values

    def printed_errors(self) -> dict[str, int]:
        """The failed requests by kind as the text summary printed them (lib/summary.js):
        there even when k6 could not write the JSON summary."""
        line = next(line for line in self.output.splitlines() if line.strip().startswith("failed"))
        counts = re.search(r"\((.*?);", line)
        assert counts is not None, line
        return {
            kind: int(count)
            for kind, count in (part.rsplit(" ", 1) for part in counts.group(1).split(", "))
        }

    def assert_clean(self) -> None:
        """Thresholds passed, requests were sent, none failed, every check passed."""
        assert self.returncode == 0, self.output
        assert self.measured("http_reqs")["count"] > 0
        assert self.measured("http_req_failed")["rate"] == 0
        assert self.measured("checks")["rate"] == 1


# The `k6_smoke` fixture's type (tools/servelab/tests/conftest.py): script, env -> outcome.
K6Smoke = Callable[..., K6Outcome]


def run_k6(
    project: Project,
    script: str,
    env: Mapping[str, str],
    scratch: Path,
    *,
    timeout_s: float = 120,
    open_files: tuple[int, int] | None = None,
) -> K6Outcome:
    """Run loadtests/<script> under `env` with its JSON summary written in `scratch` and
    read back; `open_files` (soft, hard) limits the file descriptors k6 may open."""
    summary = scratch / "summary.json"
    summary.unlink(missing_ok=True)
    argv = k6_argv(k6_binary(), project.loadtests / script, {**env, "SUMMARY_JSON": str(summary)})

    def limit() -> None:
        if open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, open_files)

    result = subprocess.run(
        argv, cwd=project.root, capture_output=True, text=True, timeout=timeout_s, preexec_fn=limit
    )
    output = result.stdout + result.stderr[-2000:]
    if open_files is not None and not summary.is_file():
        # Starved of descriptors to the end, k6 may not open the JSON summary file; the
        # text summary on its stdout is still there (K6Outcome.printed_errors).
        return K6Outcome(result.returncode, {}, output)
    assert summary.is_file(), output
    return K6Outcome(result.returncode, json.loads(summary.read_text()), output)
