"""RequestGate: headers over nginx's limits (431) and bodies over the size limit (413) are
refused in the error shape; the bearer policy's refusals are in test_auth."""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import httpx2
from fastapi import FastAPI, Request

from servicekit.errors.fastapi import install_error_handlers
from servicekit.gate import RequestGate


def app() -> FastAPI:
    api = FastAPI()
    api.add_middleware(RequestGate)

    @api.get("/")
    async def root() -> dict[str, str]:
        return {"status": "ok"}

    return api


def get(headers: dict[str, str]) -> httpx2.Response:
    async def send() -> httpx2.Response:
        transport = httpx2.ASGITransport(app=app())
        async with httpx2.AsyncClient(transport=transport, base_url="http://kit") as client:
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


def limited_app(reads: list[int]) -> FastAPI:
    api = FastAPI()
    install_error_handlers(api)
    api.add_middleware(RequestGate, max_body_size=100)

    @api.post("/")
    async def root(request: Request) -> dict[str, int]:
        reads.append(len(await request.body()))
        return {"size": reads[-1]}

    return api


def post(api: FastAPI, content: bytes | AsyncIterator[bytes]) -> httpx2.Response:
    async def send() -> httpx2.Response:
        transport = httpx2.ASGITransport(app=api)
        async with httpx2.AsyncClient(transport=transport, base_url="http://kit") as client:
            return await client.post("/", content=content)

    return anyio.run(send)


async def chunks(count: int) -> AsyncIterator[bytes]:
    for _ in range(count):
        yield b"x" * 40


def test_a_body_within_the_limit_reaches_the_app() -> None:
    reads: list[int] = []
    assert post(limited_app(reads), b"x" * 100).json() == {"size": 100}


def test_a_declared_length_over_the_limit_is_a_413_before_the_app_reads() -> None:
    reads: list[int] = []
    response = post(limited_app(reads), b"x" * 101)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"
    assert reads == []


def test_a_chunked_body_is_cut_off_with_a_413_once_it_crosses_the_limit() -> None:
    reads: list[int] = []
    response = post(limited_app(reads), chunks(3))
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"
    assert reads == []
