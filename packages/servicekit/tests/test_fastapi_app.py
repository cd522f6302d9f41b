"""service_app: FastAPI's own OpenTelemetry stays off, even where a process has installed a
global tracer provider (servicekit.tracing records the requests' server spans); an app's own
plain-ASGI middlewares answer behind every layer."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import anyio
import httpx2
import pytest
from fastapi import FastAPI
from starlette.middleware import Middleware

from servicekit.asgi_types import ASGIApp, Receive, Scope, Send
from servicekit.auth import BearerPolicy
from servicekit.fastapi_app import service_app

_SCRIPT = """
import anyio, httpx2
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from servicekit.fastapi_app import service_app

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

async def lifespan(app):
    yield

app = service_app(title="t", summary="s", settings=None, lifespan=lifespan)

@app.get("/x")
async def x() -> dict[str, int]:
    return {"x": 1}

async def main() -> None:
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://kit") as client:
        assert (await client.get("/x")).status_code == 200

anyio.run(main)
print(len(exporter.get_finished_spans()))
"""


def test_no_fastapi_spans_with_a_global_tracer_provider() -> None:
    env = {"METRICS": "0", "ACCESS_LOG": "0", "PATH": ""}
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == "0"


class _Plain:
    """A plain-ASGI route: answers GET /plain itself and names the path it answered."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != "/plain":
            await self.app(scope, receive, send)
            return
        scope["route"] = _PlainRoute()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"plain"})


class _PlainRoute:
    path_format = "/plain"


def test_inner_middlewares_answer_behind_every_layer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("METRICS", "0")
    monkeypatch.setenv("ACCESS_LOG", "0")

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield

    app = service_app(
        title="t",
        summary="s",
        settings=None,
        lifespan=lifespan,
        auth=BearerPolicy("secret-token-0123", protect_reads=True),
        inner=[Middleware(_Plain)],
    )

    @app.get("/routed")
    async def routed() -> dict[str, int]:
        return {"routed": 1}

    async def session() -> list[httpx2.Response]:
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://kit") as client:
            authorized = {"Authorization": "Bearer secret-token-0123"}
            return [
                await client.get("/plain"),
                await client.get("/plain", headers=authorized),
                await client.get("/routed", headers=authorized),
            ]

    refused, plain, routed_answer = anyio.run(session)
    # The gate refuses before the inner middleware runs, in the error shape.
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "unauthorized"
    # Observation wraps it: the answer carries the request id.
    assert plain.content == b"plain"
    assert plain.headers["x-request-id"]
    # Everything else goes on to the framework's routes.
    assert routed_answer.json() == {"routed": 1}
