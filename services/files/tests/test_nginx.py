"""The `nginx` profile: nginx in front, downloads sent by nginx through X-Accel-Redirect; the
API docs in a browser, under nginx's Content-Security-Policy."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import socket
from collections.abc import Iterator

import httpx2
import pytest
from playwright.sync_api import Route, expect

from servelab.stack import Stack
from servelab.testing.browser import chromium
from servelab.testing.metrics import sample

from .conftest import MAX_UPLOAD_SIZE

# Every test here runs the nginx profile's stack.
pytestmark = pytest.mark.stack

PAYLOAD = os.urandom(256 * 1024 + 3)
SHA256 = hashlib.sha256(PAYLOAD).hexdigest()
DOWNLOADS = [
    "/files/download/stream/sync_read",
    "/files/download/stream/async_read",
    "/files/download/file",
    "/files/download/file/sync",
]


@pytest.fixture(scope="module")
def stack(starts_servers: None) -> Iterator[Stack]:
    env = {"WEB_CONCURRENCY": "1", "MAX_UPLOAD_SIZE": str(MAX_UPLOAD_SIZE)}
    with Stack("nginx", env=env, log=None) as stack:
        yield stack


@pytest.fixture
def client(stack: Stack) -> Iterator[httpx2.Client]:
    headers = {"Authorization": f"Bearer {stack.api_token}"}
    with httpx2.Client(
        base_url=stack.url("files-nginx"), timeout=30, trust_env=False, headers=headers
    ) as client:
        yield client


@pytest.fixture(scope="module")
def stored(stack: Stack) -> dict:
    response = httpx2.post(
        f"{stack.url('files-nginx')}/files",
        content=PAYLOAD,
        params={"filename": "héllo.bin"},
        headers={"Authorization": f"Bearer {stack.api_token}"},
    )
    assert response.status_code == 201, response.text
    return response.json()


def test_upload_through_nginx_stores_the_exact_bytes(stored: dict) -> None:
    assert stored["size"] == len(PAYLOAD)
    assert stored["sha256"] == SHA256


def test_nginx_sends_the_object_with_the_apps_headers(
    stack: Stack, client: httpx2.Client, stored: dict
) -> None:
    response = client.get(f"/files/{stored['id']}")
    assert response.status_code == 200
    assert hashlib.sha256(response.content).hexdigest() == SHA256
    assert response.headers["server"].startswith("nginx")
    assert response.headers["etag"] == f'"{SHA256}"'
    assert "filename*=UTF-8''h%C3%A9llo.bin" in response.headers["content-disposition"]
    assert response.headers["x-content-type-options"] == "nosniff"
    direct = httpx2.get(f"{stack.url('files-app')}/files/{stored['id']}")
    assert direct.headers["x-accel-redirect"] == f"/_protected/objects/{stored['id']}"
    assert direct.content == b""


@pytest.mark.parametrize("endpoint", DOWNLOADS)
def test_write_up_downloads_round_trip_through_nginx(
    client: httpx2.Client, stored: dict, endpoint: str
) -> None:
    response = client.get(endpoint, params={"id": stored["id"]})
    assert response.status_code == 200
    assert hashlib.sha256(response.content).hexdigest() == SHA256


def test_range_and_conditional_requests_through_nginx(client: httpx2.Client, stored: dict) -> None:
    path = f"/files/{stored['id']}"
    partial = client.get(path, headers={"Range": "bytes=100-199"})
    assert partial.status_code == 206
    assert partial.content == PAYLOAD[100:200]
    assert partial.headers["content-range"] == f"bytes 100-199/{len(PAYLOAD)}"
    assert client.get(path, headers={"Range": f"bytes={len(PAYLOAD)}-"}).status_code == 416
    assert client.get(path, headers={"If-None-Match": f'"{SHA256}"'}).status_code == 304


def test_the_protected_location_is_not_reachable_directly(
    client: httpx2.Client, stored: dict
) -> None:
    response = client.get(f"/_protected/objects/{stored['id']}")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_request_nginx_cannot_read_is_a_json_400(stack: Stack) -> None:
    url = httpx2.URL(stack.url("files-nginx"))
    assert url.host is not None and url.port is not None
    with socket.create_connection((url.host, url.port), timeout=10) as sock:
        sock.sendall(b"NOT AN HTTP REQUEST\r\n\r\n")
        answer = sock.makefile("rb").read()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 ")
    assert b"Content-Type: application/json" in head
    assert json.loads(body)["error"]["code"] == "bad_request"


def test_nginx_refuses_an_oversized_body_with_a_json_413(client: httpx2.Client) -> None:
    response = client.post("/files", content=b"x" * (MAX_UPLOAD_SIZE + 1))
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


def test_app_outage_is_a_json_503_not_a_502() -> None:
    with Stack("nginx", log=None) as stack:
        app = stack.running["files-app"]
        os.killpg(app.pgid, signal.SIGKILL)
        app.process.wait(timeout=10)
        response = httpx2.get(f"{stack.url('files-nginx')}/files", timeout=10)
    assert response.status_code == 503
    assert response.headers["retry-after"] == "1"
    assert response.json()["error"]["code"] == "unavailable"


def test_metrics_stay_behind_nginx_and_count_bytes(
    stack: Stack, client: httpx2.Client, stored: dict
) -> None:
    refused = client.get("/metrics")
    assert refused.status_code == 404
    assert refused.json()["error"]["code"] == "not_found"
    assert client.get(f"/files/{stored['id']}").status_code == 200
    metrics = httpx2.get(f"{stack.url('files-app')}/metrics").text
    assert (sample(metrics, "files_bytes_stored_total") or 0) >= len(PAYLOAD)
    assert (sample(metrics, "files_bytes_served_total", {"via": "nginx"}) or 0) >= len(PAYLOAD)


def test_every_answer_carries_one_request_id(client: httpx2.Client, stored: dict) -> None:
    for response in (
        client.get(f"/files/{stored['id']}"),  # sent by nginx on X-Accel-Redirect
        client.get("/files", params={"limit": 1}),  # the app's answer, passed on
        client.get("/nope/nope"),  # the app's 404
    ):
        ids = response.headers.get_list("x-request-id")
        assert len(ids) == 1 and len(ids[0]) == 32, (response.url, ids)


# What each docs page shows once its script has run, and the operations it lists.
DOCS_PAGES = {"/docs": ".opblock", "/redoc": "[data-section-id^='operation/']"}
# ReDoc's sidebar shows Redocly's logo from Redocly's site, which no option turns off: the
# policy refuses it and ReDoc leaves it out (offline, the request fails, to the same effect).
REDOCLY_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"


@pytest.mark.parametrize("page", sorted(DOCS_PAGES))
def test_the_docs_render_behind_nginx_with_nothing_from_elsewhere(stack: Stack, page: str) -> None:
    """In a browser that reaches nothing but nginx, under the Content-Security-Policy nginx
    sends, the page lists the API, with no request or script refused and no script error on
    the way."""
    base = stack.url("files-nginx")
    outside: list[str] = []
    logged: list[str] = []
    errors: list[str] = []

    def only_nginx(route: Route) -> None:
        if route.request.url.startswith(base):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    with chromium() as browser:
        tab = browser.new_page()
        tab.route("**/*", only_nginx)
        tab.on("console", lambda message: logged.append(message.text))
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.goto(f"{base}{page}")
        expect(tab.get_by_role("heading", name=re.compile("^servelab files"))).to_be_visible()
        expect(tab.locator(DOCS_PAGES[page]).first).to_be_visible()
    assert outside == []
    refused = [text for text in logged if "Content Security Policy" in text]
    assert [text for text in refused if REDOCLY_LOGO not in text] == []
    assert errors == []
