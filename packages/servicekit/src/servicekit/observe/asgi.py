"""The ASGI middleware (FastAPI, Starlette): `app.add_middleware(ObserveMiddleware)`.

Per HTTP request: the request id (X-Request-ID in, the same out), the request metrics by
route template (the `route` Starlette's router puts in the scope) and status, one JSON
access log line. GET /metrics (METRICS_PATH) answers the Prometheus exposition itself and
is neither counted nor logged (with METRICS=0 nothing is counted, and the path is the
app's). A request the app fails with an exception counts as a 500.
"""

import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any

from servicekit.metrics import exposition
from servicekit.observe.recorder import Recorder
from servicekit.observe.requestid import current, request_id
from servicekit.observe.settings import ObserveSettings

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_REQUEST_ID = b"x-request-id"


@dataclass(frozen=True)
class RouteTemplate:
    """What a route answered in plain ASGI puts in `scope["route"]`, as Starlette's router
    puts the route that matched: the request metrics and the access log keep the template
    ("/files/{object_id}"), not each path."""

    path_format: str


class ObserveMiddleware:
    def __init__(self, app: ASGIApp, settings: ObserveSettings | None = None) -> None:
        self.app = app
        self.settings = settings or ObserveSettings.from_env()
        self._recorder = Recorder(self.settings)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, self._flush_at_shutdown(send))
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == self.settings.endpoint:
            await _answer_metrics(send)
            return
        rid = request_id(_header(scope, _REQUEST_ID))
        token = current.set(rid)
        status, size = 500, 0
        started = time.perf_counter()
        started_ns = time.time_ns() if self._recorder.tracing else 0

        async def observed_send(message: Message) -> None:
            nonlocal status, size
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), (_REQUEST_ID, rid.encode())]
            elif message["type"] == "http.response.body":
                size += len(message.get("body", b""))
            await send(message)

        self._recorder.begin()
        try:
            await self.app(scope, receive, observed_send)
        finally:
            current.reset(token)
            self._recorder.finish(
                method=scope["method"],
                route=_route(scope),
                path=scope["path"],
                status=status,
                seconds=time.perf_counter() - started,
                size=size,
                request_id=rid,
                started_ns=started_ns,
                carrier=_carrier(scope) if self._recorder.tracing else None,
            )

    def _flush_at_shutdown(self, send: Send) -> Send:
        """`send` for the lifespan scope, writing the waiting access lines as the app says
        it has shut down: uvicorn then re-raises SIGTERM, and no exit hook runs."""

        async def lifespan_send(message: Message) -> None:
            if message["type"].startswith("lifespan.shutdown."):
                self._recorder.flush()
            await send(message)

        return lifespan_send


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return bytes(value).decode("latin-1")
    return None


def _carrier(scope: Scope) -> dict[str, str]:
    return {bytes(k).decode("latin-1"): bytes(v).decode("latin-1") for k, v in scope["headers"]}


def _route(scope: Scope) -> str | None:
    """The template of the route that matched ("/objects/{object_id}"), if one did."""
    route = scope.get("route")
    path = getattr(route, "path_format", None) or getattr(route, "path", None)
    return path if isinstance(path, str) else None


async def _answer_metrics(send: Send) -> None:
    body = exposition.render()
    headers = [
        (b"content-type", exposition.CONTENT_TYPE.encode()),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})
