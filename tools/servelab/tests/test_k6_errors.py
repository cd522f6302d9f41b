"""loadtests/lib/errors.js: a failed response's kind, as wrk counts its socket errors."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from servelab.bench.k6 import k6_binary
from servelab.bench.summary import ERROR_KINDS

# (status, error_code, error) -> the kind lib/errors.js gives it
CASES = [
    ((200, 0, ""), None),
    ((204, 0, ""), None),
    ((301, 0, ""), "non_2xx"),
    ((503, 0, ""), "non_2xx"),
    ((0, 1212, "dial: connection refused"), "connect"),
    ((0, 1213, "dial tcp: socket: too many open files"), "connect"),
    ((0, 1101, "lookup: no such host"), "connect"),
    ((0, 1211, "dial: i/o timeout"), "timeout"),
    ((0, 1050, "request timeout"), "timeout"),
    ((0, 1220, "read: connection reset by peer"), "read"),
    ((0, 1000, "unexpected EOF"), "read"),
    ((0, 1220, "write: connection reset by peer"), "write"),
    ((0, 1201, "write: broken pipe"), "write"),
    ((0, 1300, "tls: handshake failure"), "other"),
]

SCRIPT = """
import {{ errorKind, ERROR_KINDS }} from '{lib}';
const cases = {cases};
export const options = {{ vus: 1, iterations: 1 }};
export default function () {{}}
export function handleSummary() {{
  const kinds = cases.map(([status, code, error]) =>
    errorKind({{ status: status, error_code: code, error: error }}));
  return {{ stdout: JSON.stringify({{ kinds, all: ERROR_KINDS }}) }};
}}
"""


@pytest.fixture(scope="module")
def probe(
    project_root: Path, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, list[str | None]]:
    script = tmp_path_factory.mktemp("errors") / "errors_probe.js"
    cases = json.dumps([list(response) for response, _ in CASES])
    script.write_text(
        SCRIPT.format(
            lib=(project_root / "loadtests" / "lib" / "errors.js").as_posix(), cases=cases
        )
    )
    argv = [k6_binary(), "run", "--quiet", "--no-usage-report", str(script)]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=True)
    found: dict[str, list[str | None]] = json.loads(result.stdout.strip().splitlines()[-1])
    return found


def test_each_failure_gets_its_kind(probe: dict[str, list[str | None]]) -> None:
    assert probe["kinds"] == [kind for _, kind in CASES]


def test_the_kinds_are_those_the_runner_reads(probe: dict[str, list[str | None]]) -> None:
    assert tuple(probe["all"]) == ERROR_KINDS
