"""Smoke runs of loadtests/upload.js and download.js against the real files service,
nginx in front of it, and the reference nginx: short, with 0 failed requests required."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from servelab.bench.load.k6 import THRESHOLDS_FAILED
from servelab.bench.load.payload import generate_payload, write_payload
from servelab.stack import Stack
from servelab.stack.ports import free_port
from servelab.testing.k6 import K6Smoke

# The bearer token the stacks here require for writes, which the scripts send (lib/auth.js).
TOKEN = "k6-smoke-token"  # noqa: S105  (a test token)
AUTH = {"API_TOKEN": TOKEN}


@pytest.fixture(scope="module")
def files_url(starts_servers: None) -> Iterator[str]:
    with Stack("uvicorn", only=["files-uvicorn"], env=AUTH, log=None) as stack:
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
    k6_smoke: K6Smoke, files_url: str, script: str, env: dict[str, str]
) -> None:
    k6_smoke(script, {"BASE_URL": files_url, **AUTH, **env}).assert_clean()


def test_download_of_a_given_file_id(k6_smoke: K6Smoke, files_url: str) -> None:
    stored = httpx2.post(
        f"{files_url}/files",
        content=generate_payload(262144),
        headers={"Authorization": f"Bearer {TOKEN}"},
    ).json()
    env = {"BASE_URL": files_url, "ENDPOINT": "/files/download/file", "FILE_ID": stored["id"]}
    k6_smoke("download.js", env).assert_clean()


def test_warm_up_requests_are_left_out_of_the_measured_figures(
    k6_smoke: K6Smoke, files_url: str
) -> None:
    env = {"BASE_URL": files_url, "WARMUP": "1s", "DURATION": "1s", **AUTH}
    outcome = k6_smoke("upload.js", env)
    outcome.assert_clean()
    total = outcome.summary["metrics"]["http_reqs"]["values"]["count"]
    assert 0 < outcome.measured("http_reqs")["count"] < total


def test_non_2xx_answers_fail_the_threshold_and_are_counted(
    k6_smoke: K6Smoke, files_url: str
) -> None:
    env = {"BASE_URL": files_url, "ENDPOINT": "/files/upload/no-such-strategy", "DURATION": "1s"}
    outcome = k6_smoke("upload.js", env)
    assert outcome.returncode == THRESHOLDS_FAILED
    requests = outcome.measured("http_reqs")["count"]
    assert requests > 0
    assert outcome.measured("errors_non_2xx")["count"] == requests
    assert outcome.measured("errors_connect")["count"] == 0


def test_refused_connections_are_connect_errors(k6_smoke: K6Smoke) -> None:
    env = {"BASE_URL": f"http://127.0.0.1:{free_port()}", "DURATION": "1s"}
    outcome = k6_smoke("upload.js", env)
    assert outcome.returncode == THRESHOLDS_FAILED
    assert outcome.measured("errors_connect")["count"] > 0
    assert outcome.measured("errors_non_2xx")["count"] == 0


def test_download_through_nginx_x_accel_redirect(k6_smoke: K6Smoke) -> None:
    with Stack("nginx", only=["files-nginx"], env=AUTH, log=None) as stack:
        env = {"BASE_URL": stack.url("files-nginx"), "ENDPOINT": "/files/{id}", **AUTH}
        k6_smoke("download.js", env).assert_clean()


def test_reference_nginx_ingests_drops_and_sends_the_payload(k6_smoke: K6Smoke) -> None:
    with Stack("reference", only=["reference-nginx"], log=None) as stack:
        payload = write_payload(stack.volume("bench-payload") / "health.jpg", 262144)
        base = {"BASE_URL": stack.url("reference-nginx"), "PAYLOAD_FILE": str(payload)}
        for endpoint in ("/ingest", "/discard"):
            k6_smoke("upload.js", {**base, "ENDPOINT": endpoint}).assert_clean()
        send = {"ENDPOINT": "/payload/health.jpg", "NO_UPLOAD": "1"}
        k6_smoke("download.js", {**base, **send}).assert_clean()


@pytest.mark.parametrize(
    "service", ["files-empty-uvicorn", "files-empty-gunicorn", "files-empty-granian"]
)
def test_the_empty_files_apps_take_a_body_and_answer_nothing(
    k6_smoke: K6Smoke, service: str
) -> None:
    with Stack("reference", only=[service], log=None) as stack:
        base = {"BASE_URL": stack.url(service), "ENDPOINT": "/"}
        k6_smoke("upload.js", base).assert_clean()
        k6_smoke("download.js", {**base, "NO_UPLOAD": "1", "EXPECT_SIZE": "0"}).assert_clean()


def test_the_bare_strategy_app_takes_an_upload_without_a_token(k6_smoke: K6Smoke) -> None:
    """files-bare-uvicorn: the write-up's streamed upload with no layer (no token asked)."""
    with Stack("reference", only=["files-bare-uvicorn"], log=None) as stack:
        base = {"BASE_URL": stack.url("files-bare-uvicorn"), "MODE": "raw"}
        endpoint = "/files/upload/stream/async_read_and_disk_write"
        k6_smoke("upload.js", {**base, "ENDPOINT": endpoint}).assert_clean()
