"""The floor apps read the whole body, drop it, and answer the fixed bytes."""

from __future__ import annotations

import asyncio
import io
from typing import Any

from floor_apps import asgi_app, wsgi_app

BODY = b'{"hello": "world"}'


def test_the_asgi_app_reads_every_chunk_then_answers_the_bytes() -> None:
    chunks = [
        {"type": "http.request", "body": b"a" * 10, "more_body": True},
        {"type": "http.request", "body": b"b", "more_body": False},
    ]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return chunks.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    app = asgi_app(BODY, "application/json")
    asyncio.run(app({"type": "http"}, receive, send))
    assert not chunks
    assert sent[0]["status"] == 200
    assert (b"content-length", str(len(BODY)).encode()) in sent[0]["headers"]
    assert sent[1] == {"type": "http.response.body", "body": BODY}


def test_the_asgi_app_answers_nothing_to_a_client_that_left() -> None:
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(asgi_app(BODY, "application/json")({"type": "http"}, receive, send))
    assert sent == []


def test_the_wsgi_app_reads_no_more_than_content_length() -> None:
    stream = io.BytesIO(b"x" * 100 + b"NEXT REQUEST")
    started: list[tuple[str, list[tuple[str, str]]]] = []
    environ = {"CONTENT_LENGTH": "100", "wsgi.input": stream}
    answer = wsgi_app(BODY, "text/plain")(environ, lambda s, h: started.append((s, h)))
    assert list(answer) == [BODY]
    assert stream.read() == b"NEXT REQUEST"
    assert started == [("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "18")])]
