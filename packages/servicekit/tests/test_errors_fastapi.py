"""install_error_handlers: every failure of a FastAPI app in the one JSON shape."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
import pytest
from fastapi import APIRouter, FastAPI, Request
from starlette.exceptions import HTTPException
from starlette.types import Message, Receive, Scope, Send

from servicekit.errors import ApiError
from servicekit.errors.fastapi import install_error_handlers


def make_app() -> FastAPI:
    app = FastAPI()
    install_error_handlers(app)

    @app.get("/gone")
    async def gone() -> None:
        raise ApiError(410, "object_gone", "deleted yesterday", headers={"X-Why": "deleted"})

    @app.get("/http")
    async def http() -> None:
        raise HTTPException(409, "taken")

    @app.get("/items/{number}")
    async def item(number: int) -> dict[str, int]:
        return {"number": number}

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("a bug")

    @app.delete("/items/{number}")
    async def delete_item(number: int) -> None:
        return None

    files = APIRouter(prefix="/files")

    @files.get("/{name}")
    async def read_file(name: str) -> dict[str, str]:
        return {"name": name}

    @files.delete("/{name}")
    async def delete_file(name: str) -> None:
        return None

    app.include_router(files)

    @app.post("/form")
    async def form(request: Request) -> dict[str, int]:
        return {"fields": len(await request.form())}

    return app


class Client:
    """Requests straight into the ASGI app (no server, no lifespan), one event loop each."""

    def __init__(self, app: Any) -> None:
        self.transport = httpx2.ASGITransport(app=app, raise_app_exceptions=False)

    def request(self, method: str, path: str, **kwargs: Any) -> httpx2.Response:
        async def send() -> httpx2.Response:
            async with httpx2.AsyncClient(transport=self.transport, base_url="http://kit") as c:
                return await c.request(method, path, **kwargs)

        return anyio.run(send)

    def get(self, path: str) -> httpx2.Response:
        return self.request("GET", path)

    def post(self, path: str, **kwargs: Any) -> httpx2.Response:
        return self.request("POST", path, **kwargs)


@pytest.fixture
def client() -> Client:
    app = make_app()

    async def limited(scope: Scope, receive: Receive, send: Send) -> None:
        """Cut every body off after 10 bytes, as a size-limit middleware does."""
        received = 0

        async def receive_within_limit() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > 10:
                raise ApiError(413, "payload_too_large", "over 10 bytes")
            return message

        await app(scope, receive_within_limit, send)

    return Client(limited)


def error_of(response: httpx2.Response) -> dict[str, object]:
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert list(body) == ["error"]
    error: dict[str, object] = body["error"]
    return error


def test_an_api_error_keeps_its_status_code_message_and_headers(
    client: Client,
) -> None:
    response = client.get("/gone")
    assert response.status_code == 410
    assert response.headers["x-why"] == "deleted"
    assert error_of(response) == {"code": "object_gone", "message": "deleted yesterday"}


@pytest.mark.parametrize(
    ("method", "path", "status", "error"),
    [
        ("GET", "/nope", 404, {"code": "not_found", "message": "Not Found"}),
        ("DELETE", "/gone", 405, {"code": "method_not_allowed", "message": "Method Not Allowed"}),
        ("GET", "/http", 409, {"code": "conflict", "message": "taken"}),
        ("GET", "/boom", 500, {"code": "internal_error", "message": "internal server error"}),
    ],
)
def test_framework_errors_answer_the_shape(
    client: Client, method: str, path: str, status: int, error: dict[str, str]
) -> None:
    response = client.request(method, path)
    assert response.status_code == status
    assert error_of(response) == error


def test_a_validation_error_names_the_field(client: Client) -> None:
    response = client.get("/items/seven")
    assert response.status_code == 422
    error = error_of(response)
    assert error["code"] == "validation_error"
    assert str(error["message"]).startswith("path.number: Input should be a valid integer")
    assert error["details"][0]["loc"] == ["path", "number"]  # type: ignore[index]


def test_an_api_error_from_the_body_stream_survives_form_parsing(
    client: Client,
) -> None:
    response = client.post("/form", data={"field": "x" * 100})
    assert response.status_code == 413
    assert error_of(response) == {"code": "payload_too_large", "message": "over 10 bytes"}


def test_a_405_allows_every_method_of_every_route_at_the_path(client: Client) -> None:
    """GET and DELETE /items/{number} are two routes: Allow names both, not the first."""
    response = client.request("PUT", "/items/1")
    assert response.status_code == 405
    assert error_of(response)["code"] == "method_not_allowed"
    assert response.headers["allow"] == "DELETE, GET"


def test_a_405_allows_the_methods_of_an_included_router(client: Client) -> None:
    """Routes that come from app.include_router count as the app's own."""
    response = client.request("PUT", "/files/a")
    assert response.status_code == 405
    assert response.headers["allow"] == "DELETE, GET"
