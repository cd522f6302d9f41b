"""Smoke runs of loadtests/upload.js and download.js against the real files service,
nginx in front of it, and the reference nginx: short, with 0 failed requests required."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from servelab.bench.k6 import THRESHOLDS_FAILED, k6_argv, k6_binary
from servelab.bench.payload import generate_payload, write_payload
from servelab.ports import free_port
from servelab.stack import Stack

ROOT = Path(__file__).resolve().parents[3]
SMOKE = {"VUS": "4", "DURATION": "2s", "THRESHOLD_FAILED": "0", "THRESHOLD_CHECKS": "1"}


def _k6(tmp_path: Path, script: str, env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    summary = tmp_path / "summary.json"
    argv = k6_argv(
        k6_binary(),
        ROOT / "loadtests" / script,
        {**SMOKE, **env, "SUMMARY_JSON": str(summary)},
    )
    result = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert summary.is_file(), result.stdout + result.stderr[-2000:]
    return result.returncode, json.loads(summary.read_text())


def _measured(summary: dict[str, Any], metric: str) -> dict[str, float]:
    return summary["metrics"][f"{metric}{{phase:measure}}"]["values"]


def _assert_clean(returncode: int, summary: dict[str, Any]) -> None:
    assert returncode == 0
    assert _measured(summary, "http_reqs")["count"] > 0
    assert _measured(summary, "http_req_failed")["rate"] == 0
    assert _measured(summary, "checks")["rate"] == 1


@pytest.fixture(scope="module")
def files_url() -> Iterator[str]:
    with Stack("uvicorn", only=["files-uvicorn"], log=None) as stack:
        yield stack.url("files-uvicorn")


@pytest.mark.parametrize(
    ("script", "env"),
    [
        ("upload.js", {}),
        ("upload.js", {"ENDPOINT": "/files/upload/single"}),
        ("upload.js", {"ENDPOINT": "/files/upload/raw/json/base64decode"}),
        ("upload.js", {"ENDPOINT": "/files", "MODE": "raw"}),
        ("upload.js", {"ENDPOINT": "/files", "MODE": "multipart"}),
        ("download.js", {}),
        ("download.js", {"ENDPOINT": "/files/{id}"}),
    ],
    ids=["raw-default", "multipart", "base64", "files-raw", "files-multipart", "dl-default", "id"],
)
def test_scripts_pass_against_the_files_service(
    files_url: str, tmp_path: Path, script: str, env: dict[str, str]
) -> None:
    _assert_clean(*_k6(tmp_path, script, {"BASE_URL": files_url, **env}))


def test_download_of_a_given_file_id(files_url: str, tmp_path: Path) -> None:
    stored = httpx.post(f"{files_url}/files", content=generate_payload(262144)).json()
    env = {"BASE_URL": files_url, "ENDPOINT": "/files/download/file", "FILE_ID": stored["id"]}
    _assert_clean(*_k6(tmp_path, "download.js", env))


def test_warm_up_requests_are_left_out_of_the_measured_figures(
    files_url: str, tmp_path: Path
) -> None:
    env = {"BASE_URL": files_url, "WARMUP": "1s", "DURATION": "1s"}
    returncode, summary = _k6(tmp_path, "upload.js", env)
    _assert_clean(returncode, summary)
    total = summary["metrics"]["http_reqs"]["values"]["count"]
    assert 0 < _measured(summary, "http_reqs")["count"] < total


def test_non_2xx_answers_fail_the_threshold_and_are_counted(files_url: str, tmp_path: Path) -> None:
    env = {"BASE_URL": files_url, "ENDPOINT": "/files/upload/no-such-strategy", "DURATION": "1s"}
    returncode, summary = _k6(tmp_path, "upload.js", env)
    assert returncode == THRESHOLDS_FAILED
    requests = _measured(summary, "http_reqs")["count"]
    assert requests > 0
    assert _measured(summary, "errors_non_2xx")["count"] == requests
    assert _measured(summary, "errors_connect")["count"] == 0


def test_refused_connections_are_connect_errors(tmp_path: Path) -> None:
    env = {"BASE_URL": f"http://127.0.0.1:{free_port()}", "DURATION": "1s"}
    returncode, summary = _k6(tmp_path, "upload.js", env)
    assert returncode == THRESHOLDS_FAILED
    assert _measured(summary, "errors_connect")["count"] > 0
    assert _measured(summary, "errors_non_2xx")["count"] == 0


def test_download_through_nginx_x_accel_redirect(tmp_path: Path) -> None:
    with Stack("nginx", only=["files-nginx"], log=None) as stack:
        env = {"BASE_URL": stack.url("files-nginx"), "ENDPOINT": "/files/{id}"}
        _assert_clean(*_k6(tmp_path, "download.js", env))


def test_reference_nginx_ingests_and_sends_the_payload(tmp_path: Path) -> None:
    with Stack("reference", log=None) as stack:
        payload = write_payload(stack.volume("bench-payload") / "health.jpg", 262144)
        base = {"BASE_URL": stack.url("reference-nginx"), "PAYLOAD_FILE": str(payload)}
        ingest = {"ENDPOINT": "/ingest/health.jpg", "METHOD": "PUT"}
        _assert_clean(*_k6(tmp_path, "upload.js", {**base, **ingest}))
        send = {"ENDPOINT": "/payload/health.jpg", "NO_UPLOAD": "1"}
        _assert_clean(*_k6(tmp_path, "download.js", {**base, **send}))
