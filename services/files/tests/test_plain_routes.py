"""GET and HEAD /files/{id} and POST /files answered in plain ASGI, ahead of FastAPI's
routing: behind the same layers, labelled with the same route, in the same error shape, with
the APIRoutes' answers, and still in the OpenAPI schema."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx2
from fastapi.routing import APIRoute

from files_service.main import create_app
from files_service.settings import Settings
from servicekit.asgi_types import Receive, Scope, Send
from servicekit.observe.asgi import RouteTemplate

TOKEN = "test-token-0123456789"  # noqa: S105  (a test token)
AUTHORIZED = {"Authorization": f"Bearer {TOKEN}"}
DATA = bytes(range(256)) * 40
# What the plain routes record their requests under, as FastAPI's router records a route.
DOWNLOAD = RouteTemplate("/files/{object_id}")
UPLOAD = RouteTemplate("/files")

# A request: method, path ("{id}" in it is the uploaded object's), headers, and a body.
Call = tuple[str, str, Mapping[str, str]] | tuple[str, str, Mapping[str, str], bytes]


@dataclass(frozen=True)
class Answer:
    response: httpx2.Response
    # What the router left in the request's scope: the route the metrics and the access
    # log name (None where no route was reached).
    route: object


def _session(settings: Settings, requests: list[Call]) -> list[Answer]:
    """Upload DATA, then send `requests` to an in-process app."""
    app = create_app(settings)
    app.state.store.prepare()  # what the lifespan does, which ASGITransport does not run
    routes: list[object] = []

    async def recording(scope: Scope, receive: Receive, send: Send) -> None:
        await app(scope, receive, send)
        routes.append(scope.get("route"))

    async def send() -> list[Answer]:
        transport = httpx2.ASGITransport(app=recording)
        async with httpx2.AsyncClient(transport=transport, base_url="http://test") as client:
            upload = await client.post("/files", content=DATA, headers=AUTHORIZED)
            assert upload.status_code == 201, upload.text
            object_id = upload.json()["id"]
            answers = []
            for method, path, headers, *body in requests:
                response = await client.request(
                    method, path.format(id=object_id), headers=dict(headers), content=b"".join(body)
                )
                answers.append(Answer(response, routes[-1]))
            return answers

    return anyio.run(send)


def _settings(tmp_path: Path, **overrides: object) -> Settings:
    return Settings.model_validate({"storage_dir": tmp_path, "api_token": TOKEN, **overrides})


def test_get_and_head_are_answered_ahead_of_the_framework(tmp_path: Path) -> None:
    get, head, ranged, not_modified = _session(
        _settings(tmp_path),
        [
            ("GET", "/files/{id}", {}),
            ("HEAD", "/files/{id}", {}),
            ("GET", "/files/{id}", {"Range": "bytes=10-19"}),
            ("GET", "/files/{id}", {"If-None-Match": "*"}),
        ],
    )
    for answer in (get, head, ranged, not_modified):
        assert answer.route == DOWNLOAD
    assert get.response.status_code == 200
    assert get.response.content == DATA
    assert get.response.headers["content-length"] == str(len(DATA))
    assert get.response.headers["x-content-type-options"] == "nosniff"
    assert get.response.headers["content-disposition"].startswith("attachment;")
    assert get.response.headers["last-modified"].endswith(" GMT")
    assert head.response.status_code == 200
    assert head.response.content == b""
    assert head.response.headers["content-length"] == str(len(DATA))
    assert head.response.headers["etag"] == get.response.headers["etag"]
    assert ranged.response.status_code == 206
    assert ranged.response.content == DATA[10:20]
    assert not_modified.response.status_code == 304


def test_the_other_methods_of_the_path_go_on_to_the_api_routes(tmp_path: Path) -> None:
    put, delete, gone = _session(
        _settings(tmp_path),
        [
            ("PUT", "/files/{id}", AUTHORIZED),
            ("DELETE", "/files/{id}", AUTHORIZED),
            ("GET", "/files/{id}", {}),
        ],
    )
    assert put.response.status_code == 405
    assert set(put.response.headers["allow"].split(", ")) == {"DELETE", "GET", "HEAD"}
    assert put.response.json()["error"]["code"] == "method_not_allowed"
    assert delete.response.status_code == 204
    assert isinstance(delete.route, APIRoute)
    assert delete.route.path_format == "/files/{object_id}"
    assert gone.response.status_code == 404
    assert gone.response.json()["error"]["code"] == "not_found"


def test_ids_that_are_not_ours_are_the_same_json_404(tmp_path: Path) -> None:
    answers = _session(
        _settings(tmp_path),
        [
            ("GET", f"/files/{'0' * 32}", {}),
            ("GET", f"/files/{'A' * 32}", {}),
            ("GET", "/files/objects", {}),
            ("HEAD", "/files/%2E%2E", {}),
        ],
    )
    for answer in answers:
        assert answer.route == DOWNLOAD
        assert answer.response.status_code == 404
        assert answer.response.headers["content-type"] == "application/json"
    assert answers[0].response.json() == {
        "error": {"code": "not_found", "message": "object not found"}
    }


def test_the_gate_still_stands_in_front(tmp_path: Path) -> None:
    refused, authorized, oversized = _session(
        _settings(tmp_path, api_auth_reads=True),
        [
            ("GET", "/files/{id}", {}),
            ("GET", "/files/{id}", AUTHORIZED),
            ("GET", "/files/{id}", {**AUTHORIZED, "X-Large": "a" * 9000}),
        ],
    )
    assert refused.response.status_code == 401
    assert refused.response.json()["error"]["code"] == "unauthorized"
    assert authorized.response.status_code == 200
    assert oversized.response.status_code == 431
    assert authorized.response.headers["x-request-id"]


def test_x_accel_redirect_is_answered_ahead_of_the_framework(tmp_path: Path) -> None:
    (answer,) = _session(
        _settings(tmp_path, accel_redirect_prefix="/_protected/"),
        [("GET", "/files/{id}", {})],
    )
    assert answer.route == DOWNLOAD
    assert answer.response.content == b""
    object_id = answer.response.headers["x-accel-redirect"].rsplit("/", 1)[1]
    assert answer.response.headers["x-accel-redirect"] == f"/_protected/objects/{object_id}"


def test_the_schema_still_describes_get_and_head(tmp_path: Path) -> None:
    operations = create_app(_settings(tmp_path)).openapi()["paths"]["/files/{object_id}"]
    assert operations["get"]["operationId"] == "get_object"
    assert operations["head"]["operationId"] == "head_object"
    for method in ("get", "head"):
        assert {"200", "206", "304", "404", "416"} <= set(operations[method]["responses"])
        (parameter,) = operations[method]["parameters"]
        assert (parameter["name"], parameter["in"]) == ("object_id", "path")
    assert "delete" in operations


def test_uploads_are_answered_ahead_of_the_framework(tmp_path: Path) -> None:
    named, last_name_wins, too_long, refused, too_large = _session(
        _settings(tmp_path, max_upload_size=len(DATA)),
        [
            ("POST", "/files?filename=a.txt", AUTHORIZED, b"hello"),
            ("POST", "/files?filename=a.txt&filename=b.txt", AUTHORIZED, b"hello"),
            ("POST", f"/files?filename={'x' * 1025}", AUTHORIZED, b"hello"),
            ("POST", "/files", {}, b"hello"),
            ("POST", "/files", AUTHORIZED, DATA + b"x"),
        ],
    )
    for answer in (named, last_name_wins, too_long):
        assert answer.route == UPLOAD
    assert named.response.status_code == 201
    stored = named.response.json()
    assert (stored["filename"], stored["size"]) == ("a.txt", 5)
    assert named.response.headers["location"] == f"/files/{stored['id']}"
    assert last_name_wins.response.json()["filename"] == "b.txt"
    # As FastAPI's validation of the APIRoute's query parameter answers it.
    assert too_long.response.status_code == 422
    error = too_long.response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"][0]["loc"] == ["query", "filename"]
    # The gate still stands in front: the token, then the body limit.
    assert refused.response.status_code == 401
    assert too_large.response.status_code == 413
    assert too_large.response.json()["error"]["code"] == "payload_too_large"


def test_an_upload_whose_client_leaves_mid_body_is_a_499_and_stores_nothing(
    tmp_path: Path,
) -> None:
    app = create_app(_settings(tmp_path))
    app.state.store.prepare()
    headers = [(b"authorization", AUTHORIZED["Authorization"].encode())]
    headers.append((b"content-length", str(len(DATA)).encode()))
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/files",
        "raw_path": b"/files",
        "query_string": b"",
        "headers": headers,
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
    }
    arriving = [
        {"type": "http.request", "body": DATA[:100], "more_body": True},
        {"type": "http.disconnect"},
    ]
    sent: list[dict[str, object]] = []

    async def receive() -> dict[str, object]:
        return arriving.pop(0) if arriving else {"type": "http.disconnect"}

    async def send(message: dict[str, object]) -> None:
        sent.append(message)

    anyio.run(app, scope, receive, send)
    assert sent[0]["status"] == 499
    assert scope["route"] == UPLOAD
    stored = [path for path in tmp_path.rglob("*") if path.is_file()]
    assert stored == []
