"""Writes need the bearer token (docs/security.md); reads and probes do not."""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx2
import pytest

from files_service.main import create_app
from files_service.settings import Settings

TOKEN = "test-token-0123456789"  # noqa: S105  (a test token)
OBJECT_ID = "0" * 32


def _write_routes() -> list[tuple[str, str]]:
    """Every (method, path) of the app that writes, from its OpenAPI schema, so a new write
    endpoint is covered without editing this test."""
    schema = create_app(Settings(storage_dir=Path("unused"))).openapi()
    found = []
    for path, operations in schema["paths"].items():
        for method in sorted(set(operations) - {"get", "head"}):
            found.append((method.upper(), path.replace("{object_id}", OBJECT_ID)))
    return found


WRITES = _write_routes()


def test_the_writes_are_the_uploads_and_the_delete() -> None:
    paths = {path for _, path in WRITES}
    assert ("POST", "/files") in WRITES
    assert ("DELETE", f"/files/{OBJECT_ID}") in WRITES
    assert "/files/upload/single" in paths
    assert "/files/upload/stream/async_read_and_memory_write" in paths
    assert {method for method, _ in WRITES} == {"POST", "DELETE"}


def _request(
    settings: Settings, method: str, path: str, headers: dict[str, str] | None = None
) -> httpx2.Response:
    """One request to an in-process app (no server: the middleware answers first)."""

    app = create_app(settings)
    app.state.store.prepare()  # what the lifespan does, which ASGITransport does not run

    async def send() -> httpx2.Response:
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.request(method, path, content=b"body", headers=headers)

    return anyio.run(send)


@pytest.mark.parametrize(("method", "path"), WRITES)
def test_every_write_is_refused_without_or_with_a_wrong_token(
    tmp_path: Path, method: str, path: str
) -> None:
    settings = Settings(storage_dir=tmp_path, api_token=TOKEN)
    missing = _request(settings, method, path)
    assert missing.status_code == 401
    assert missing.headers["www-authenticate"].startswith("Bearer")
    assert missing.json()["error"]["code"] == "unauthorized"
    wrong = _request(settings, method, path, {"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    assert wrong.json()["error"]["code"] == "invalid_token"


@pytest.mark.parametrize(("method", "path"), WRITES)
def test_with_no_token_configured_every_write_is_closed(
    tmp_path: Path, method: str, path: str
) -> None:
    response = _request(Settings(storage_dir=tmp_path), method, path, {"Authorization": "Bearer x"})
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "writes_disabled"
    assert "API_TOKEN" in response.json()["error"]["message"]


def test_reads_need_the_token_only_when_configured(tmp_path: Path) -> None:
    open_reads = Settings(storage_dir=tmp_path, api_token=TOKEN)
    assert _request(open_reads, "GET", "/files").status_code == 200
    closed_reads = Settings(storage_dir=tmp_path, api_token=TOKEN, api_auth_reads=True)
    assert _request(closed_reads, "GET", "/files").status_code == 401
    assert _request(closed_reads, "GET", "/readyz").status_code == 200
    authorized = {"Authorization": f"Bearer {TOKEN}"}
    assert _request(closed_reads, "GET", "/files", authorized).status_code == 200


def test_the_token_can_come_from_a_secret_file(tmp_path: Path) -> None:
    secret = tmp_path / "api_token"
    secret.write_text(TOKEN + "\n")
    settings = Settings(storage_dir=tmp_path / "store", api_token_file=str(secret))
    authorized = {"Authorization": f"Bearer {TOKEN}"}
    assert _request(settings, "DELETE", f"/files/{OBJECT_ID}", authorized).status_code == 404


def test_a_real_server_takes_writes_with_the_token_only(server_factory) -> None:
    with server_factory("uvicorn", "files-uvicorn") as server:
        with server.client(authorized=False) as anonymous:
            assert anonymous.post("/files", content=b"x").status_code == 401
            assert anonymous.get("/files").status_code == 200
        with server.client() as client:
            created = client.post("/files", content=b"x")
            assert created.status_code == 201
            with server.client(authorized=False) as anonymous:
                assert anonymous.get(created.headers["location"]).content == b"x"
                assert anonymous.delete(created.headers["location"]).status_code == 401
            assert client.delete(created.headers["location"]).status_code == 204
