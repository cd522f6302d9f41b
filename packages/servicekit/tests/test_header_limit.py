"""HeaderLimit: a request over nginx's header limits is a JSON 431 before the app runs."""

from __future__ import annotations

import anyio
import httpx
from fastapi import FastAPI

from servicekit.header_limit import HeaderLimit


def app() -> FastAPI:
    api = FastAPI()
    api.add_middleware(HeaderLimit)

    @api.get("/")
    async def root() -> dict[str, str]:
        return {"status": "ok"}

    return api


def get(headers: dict[str, str]) -> httpx.Response:
    async def send() -> httpx.Response:
        transport = httpx.ASGITransport(app=app())
        async with httpx.AsyncClient(transport=transport, base_url="http://kit") as client:
            return await client.get("/", headers=headers)

    return anyio.run(send)


def test_headers_within_the_limits_reach_the_app() -> None:
    assert get({"X-A": "a" * 8000}).json() == {"status": "ok"}


def test_one_70_kb_header_is_a_json_431() -> None:
    response = get({"X-A": "a" * 70_000})
    assert response.status_code == 431
    assert response.json()["error"]["code"] == "request_header_fields_too_large"


def test_many_headers_over_32_kib_in_all_are_a_431() -> None:
    assert get({f"X-{n}": "a" * 1000 for n in range(40)}).status_code == 431
