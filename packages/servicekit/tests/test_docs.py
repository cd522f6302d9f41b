"""servicekit.docs on the app service_app makes: Swagger UI and ReDoc load every file from the
service (nothing from a CDN), run no inline script (nginx's Content-Security-Policy runs the
origin's own scripts only), follow the root path, and their files are answered, revalidated
and refused like the service's other reads."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from servelab.testing.pages import page_problems, references
from servicekit.auth import BearerPolicy
from servicekit.docs import STATIC_PATH, asset_table
from servicekit.fastapi_app import service_app

TOKEN = "docs-test-token"  # noqa: S105 (a test token)
PAGES = ["/docs", "/redoc"]


@asynccontextmanager
async def _lifespan(_: FastAPI) -> AsyncIterator[None]:
    yield


def _app(auth: BearerPolicy | None = None) -> FastAPI:
    return service_app(title="kit", summary="s", settings=None, lifespan=_lifespan, auth=auth)


@pytest.fixture
def client() -> TestClient:
    return TestClient(_app(), raise_server_exceptions=False)


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_load_everything_from_the_service(client: TestClient, page: str) -> None:
    assert page_problems(client, page) == []
    loaded = {ref.url for ref in references(client.get(page).text)}
    assert "/openapi.json" in loaded
    assert all(url.startswith(f"{STATIC_PATH}/") for url in loaded - {"/openapi.json"})


def test_redocs_bundle_renders_no_logo_from_redoclys_cdn(client: TestClient) -> None:
    bundle = client.get(f"{STATIC_PATH}/redoc.standalone.js").content
    assert b"cdn.redoc.ly" not in bundle
    # The vendor's file names it: what the served bundle leaves out.
    assert b"cdn.redoc.ly" in asset_table()["redoc.standalone.js"].path.read_bytes()


def test_fastapis_own_pages_load_from_a_cdn() -> None:
    """What service_app replaces: FastAPI's pages name other hosts, and the check says so."""
    plain = TestClient(FastAPI())
    for page in PAGES:
        problems = page_problems(plain, page)
        assert any("cdn.jsdelivr.net" in problem for problem in problems), problems


@pytest.mark.parametrize("page", PAGES)
def test_the_pages_run_no_inline_script(client: TestClient, page: str) -> None:
    scripts = re.findall(r"<script\b([^>]*)>", client.get(page).text)
    assert scripts
    assert all("src=" in attributes for attributes in scripts)


def test_the_pages_follow_the_root_path() -> None:
    prefixed = TestClient(_app(), root_path="/api")
    for page in PAGES:
        named = {ref.url for ref in references(prefixed.get(page).text)}
        assert "/api/openapi.json" in named
        assert all(url.startswith("/api/") for url in named)


def test_the_pages_and_their_files_stay_out_of_the_openapi_document(client: TestClient) -> None:
    assert not any(
        path.startswith(("/docs", "/redoc")) for path in client.get("/openapi.json").json()["paths"]
    )


@pytest.mark.parametrize(
    ("name", "content_type"),
    [
        ("swagger-ui-bundle.js", "text/javascript; charset=utf-8"),
        ("swagger-ui-init.js", "text/javascript; charset=utf-8"),
        ("swagger-ui.css", "text/css; charset=utf-8"),
        ("redoc.standalone.js", "text/javascript; charset=utf-8"),
        ("favicon.png", "image/png"),
    ],
)
def test_each_file_is_served_and_revalidated(
    client: TestClient, name: str, content_type: str
) -> None:
    url = f"{STATIC_PATH}/{name}"
    answer = client.get(url)
    assert answer.status_code == 200
    assert answer.headers["content-type"] == content_type
    assert answer.content == asset_table()[name].content()
    assert answer.headers["cache-control"] == "no-cache"
    again = client.get(url, headers={"If-None-Match": f'"x", W/{answer.headers["etag"]}'})
    assert again.status_code == 304
    assert again.content == b""
    assert client.get(url, headers={"If-None-Match": '"x"'}).status_code == 200
    head = client.head(url)
    assert head.status_code == 200
    assert head.headers["content-length"] == str(len(answer.content))
    assert head.content == b""


@pytest.mark.parametrize(
    "path",
    [
        f"{STATIC_PATH}/app.js",
        f"{STATIC_PATH}/%2e%2e%2fopenapi.json",
        f"{STATIC_PATH}/a/favicon.png",
    ],
)
def test_any_other_file_is_a_json_404(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "not_found"


def test_a_write_to_a_file_is_a_405_naming_get_and_head() -> None:
    answer = TestClient(_app()).post(f"{STATIC_PATH}/favicon.png")
    assert answer.status_code == 405
    assert answer.headers["allow"] == "GET, HEAD"


@pytest.mark.parametrize("protect_reads", [False, True])
def test_the_files_need_the_token_exactly_when_the_pages_do(protect_reads: bool) -> None:
    client = TestClient(_app(BearerPolicy(TOKEN, protect_reads)))
    authorized = {"Authorization": f"Bearer {TOKEN}"}
    for path in [*PAGES, f"{STATIC_PATH}/swagger-ui-bundle.js", f"{STATIC_PATH}/favicon.png"]:
        assert client.get(path).status_code == (401 if protect_reads else 200), path
        assert client.get(path, headers=authorized).status_code == 200, path
