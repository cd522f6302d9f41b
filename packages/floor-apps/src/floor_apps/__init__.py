"""Apps with no framework at all, for the floor rows of the benchmarks.

`asgi_app(body, content_type)` and `wsgi_app(body, content_type)` read the whole request
body, drop it, and answer 200 with the fixed bytes given: a server running one shows what
that server costs on its own, with nothing of a framework or an endpoint's work in it.
"""

from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

_READ_SIZE = 1 << 16


def _headers(body: bytes, content_type: str) -> list[tuple[str, str]]:
    return [("Content-Type", content_type), ("Content-Length", str(len(body)))]


def asgi_app(body: bytes, content_type: str) -> AsgiApp:
    start = {
        "type": "http.response.start",
        "status": 200,
        "headers": [(k.lower().encode(), v.encode()) for k, v in _headers(body, content_type)],
    }
    answer = {"type": "http.response.body", "body": body}

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            for done in ("lifespan.startup.complete", "lifespan.shutdown.complete"):
                await receive()
                await send({"type": done})
            return
        message = await receive()
        while message.get("more_body"):
            message = await receive()
        if message["type"] == "http.disconnect":
            return
        await send(start)
        await send(answer)

    return app


def wsgi_app(body: bytes, content_type: str) -> WsgiApp:
    headers = _headers(body, content_type)

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        # No more than CONTENT_LENGTH: past it a WSGI server may block rather than end.
        remaining = int(environ.get("CONTENT_LENGTH") or 0)
        while remaining > 0:
            chunk = environ["wsgi.input"].read(min(remaining, _READ_SIZE))
            if not chunk:
                break
            remaining -= len(chunk)
        start_response("200 OK", headers)
        return [body]

    return app
