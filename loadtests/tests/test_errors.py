"""loadtests/lib/errors.js: a failed response's kind, as wrk counts its socket errors, and
its status; lib/options.js's thresholds: every script fails its run when requests fail,
unless told to record them as the benchmark does; lib/summary.js: every script's summary
opens with where it sent the load, and names the statuses that failed and what a refused
token means."""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from servelab.bench.load.k6 import THRESHOLDS_FAILED, k6_argv, k6_binary
from servelab.bench.measure.summary import ERROR_KINDS
from servelab.bench.runner import RECORD_FAILURES
from servelab.stack.ports import free_port
from servelab.testing.k6 import K6Smoke

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


# Every script, with what it needs to send its load to a port where nothing listens
# (download.js: a given id, else its set-up's upload would abort the run first).
SCRIPTS = {
    "upload.js": {},
    "download.js": {"FILE_ID": "0" * 32},
    "wait.js": {},
    "hello.js": {},
    "health-code.js": {"ITERATIONS": "8"},
    "entryeditor.js": {},
    "outage.js": {},
}


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_run_against_a_closed_port_fails_by_default(k6_smoke: K6Smoke, script: str) -> None:
    env = {"BASE_URL": f"http://127.0.0.1:{free_port()}", "DURATION": "1s", **SCRIPTS[script]}
    outcome = k6_smoke(script, env)
    assert outcome.returncode == THRESHOLDS_FAILED, outcome.output
    assert outcome.measured("errors_connect")["count"] > 0
    assert "thresholds  FAILED: " in outcome.output


def test_the_benchmarks_thresholds_record_failed_requests_as_data(k6_smoke: K6Smoke) -> None:
    env = {"BASE_URL": f"http://127.0.0.1:{free_port()}", "DURATION": "1s", **RECORD_FAILURES}
    outcome = k6_smoke("upload.js", env)
    assert outcome.returncode == 0, outcome.output
    assert outcome.measured("http_req_failed")["rate"] == 1
    assert outcome.measured("errors_connect")["count"] > 0


@pytest.mark.parametrize("value", ["", "off", "2", "-0.1"])
def test_a_threshold_that_is_not_a_rate_is_refused(project_root: Path, value: str) -> None:
    script = project_root / "loadtests" / "upload.js"
    argv = k6_argv(k6_binary(), script, {"THRESHOLD_FAILED": value})
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "THRESHOLD_FAILED must be a rate from 0 to 1" in result.stdout + result.stderr


def _refusing(status: int) -> type[BaseHTTPRequestHandler]:
    """A handler answering every request `status` with a JSON error, as a service does
    without the token (401) or started without one (403)."""

    class Refusing(BaseHTTPRequestHandler):
        def _refuse(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            body = b'{"error": {"code": "unauthorized", "message": "no bearer token"}}'
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _refuse

        def log_message(self, format: str, *args: object) -> None:
            """Quiet: the test reads k6's counts, not the server's log."""

    return Refusing


@contextmanager
def _refusing_server(status: int) -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _refusing(status))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@pytest.fixture(scope="module")
def refusing_url() -> Iterator[str]:
    with _refusing_server(401) as url:
        yield url


# What each script's summary names first: the method and path it sent (SCRIPTS' settings).
ENDPOINTS = {
    "upload.js": "POST /files/upload/stream/async_read_and_disk_write",
    "download.js": f"GET /files/download/stream/async_read?id={'0' * 32}",
    "wait.js": "GET /sync",
    "hello.js": "GET /hello",
    "health-code.js": "POST /analysis/health-code",
    "entryeditor.js": "GET /entryeditor/entryeditor/",
    "outage.js": "GET /",
}
UNSET_HINT = (
    "  token       401 Unauthorized: API_TOKEN is not set in k6's environment; export the "
    "token the stack was started with"
)


@pytest.mark.parametrize("script", SCRIPTS)
def test_the_summary_names_the_target_and_the_statuses_that_failed(
    k6_smoke: K6Smoke, refusing_url: str, script: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run with no token against a service that wants one says where it sent the load
    and what the 401s mean."""
    monkeypatch.delenv("API_TOKEN", raising=False)  # k6 reads the environment it inherits
    env = {"BASE_URL": refusing_url, "DURATION": "1s", **SCRIPTS[script]}
    outcome = k6_smoke(script, env)
    assert outcome.returncode == THRESHOLDS_FAILED, outcome.output
    assert outcome.output.splitlines()[:2] == [
        f"  target      {refusing_url}",
        f"  endpoint    {ENDPOINTS[script]}",
    ]
    refused = outcome.measured("status_401")["count"]
    assert refused == outcome.measured("http_reqs")["count"] > 0
    assert f"by status 401 {refused:.0f})" in outcome.output
    assert UNSET_HINT in outcome.output.splitlines()


def test_a_token_the_stack_refuses_is_named_so(refusing_url: str, k6_smoke: K6Smoke) -> None:
    env = {"BASE_URL": refusing_url, "DURATION": "1s", "API_TOKEN": "not-the-stacks"}
    outcome = k6_smoke("upload.js", env)
    assert outcome.returncode == THRESHOLDS_FAILED, outcome.output
    assert (
        "  token       401 Unauthorized: the API_TOKEN in k6's environment is not the token "
        "the stack was started with"
    ) in outcome.output.splitlines()
    assert UNSET_HINT not in outcome.output


def test_a_stack_started_without_a_token_is_named_so(k6_smoke: K6Smoke) -> None:
    with _refusing_server(403) as url:
        outcome = k6_smoke("upload.js", {"BASE_URL": url, "DURATION": "1s"})
    assert outcome.returncode == THRESHOLDS_FAILED, outcome.output
    assert (
        "  token       403 Forbidden: the stack was started without API_TOKEN and refuses "
        "every write; start it with one exported"
    ) in outcome.output.splitlines()
