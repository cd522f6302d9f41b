"""Apps with no framework at all, for the physical-limit row of the hello benchmark.

`hello_service.empty:wsgi` and `hello_service.empty:asgi` answer every request with the
hello bytes, so a server running them shows what that server costs on its own.
"""

from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any

from hello_service.body import BODY, CONTENT_TYPE

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]

_WSGI_HEADERS = [("Content-Type", CONTENT_TYPE), ("Content-Length", str(len(BODY)))]
_ASGI_START = {
    "type": "http.response.start",
    "status": 200,
    "headers": [(name.lower().encode(), value.encode()) for name, value in _WSGI_HEADERS],
}
_ASGI_BODY = {"type": "http.response.body", "body": BODY}


def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
    start_response("200 OK", _WSGI_HEADERS)
    return [BODY]


async def asgi(
    scope: Scope,
    receive: Callable[[], Awaitable[Message]],
    send: Callable[[Message], Awaitable[None]],
) -> None:
    if scope["type"] == "lifespan":
        for done in ("lifespan.startup.complete", "lifespan.shutdown.complete"):
            await receive()
            await send({"type": done})
        return
    await send(_ASGI_START)
    await send(_ASGI_BODY)
