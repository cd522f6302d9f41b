"""Requests driven through an ASGI app in this process: the scope, the body's messages and
a `send` that keeps only the status, as a server would hand them over, with no socket.

What the driver itself costs is measured as the first row of every account (the floor app
answering through it), so that the layers' costs can be read against it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

# What uvicorn hands an app per http.request message: a read of up to 64 KiB.
PIECE = 64 * 1024


@dataclass(frozen=True)
class Request:
    """One request as the server parsed it: `headers` lower-case, as on the wire."""

    method: str
    path: str
    headers: tuple[tuple[bytes, bytes], ...] = ()
    body: bytes = b""
    query: bytes = b""
    # The status every answer must have: anything else stops the run (a measurement of a
    # refused request measures nothing the account means).
    expect: int = 200
    pieces: tuple[bytes, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        pieces = tuple(self.body[i : i + PIECE] for i in range(0, len(self.body), PIECE))
        object.__setattr__(self, "pieces", pieces or (b"",))

    def scope(self) -> dict[str, Any]:
        return {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.4"},
            "http_version": "1.1",
            "scheme": "http",
            "server": ("127.0.0.1", 8000),
            "client": ("127.0.0.1", 50000),
            "root_path": "",
            "method": self.method,
            "path": self.path,
            "raw_path": self.path.encode(),
            "query_string": self.query,
            "headers": list(self.headers),
            "state": {},
        }


class UnexpectedAnswer(RuntimeError):
    """An answer other than the request's `expect`."""


async def answer(app: ASGIApp, request: Request) -> None:
    """Drive `request` through `app` once, its body in pieces of PIECE bytes."""
    pieces = iter(request.pieces)
    last = len(request.pieces)
    sent = 0
    status = 0
    complete = asyncio.Event()

    async def receive() -> Message:
        nonlocal sent
        piece = next(pieces, None)
        if piece is None:
            # Past the body, as uvicorn: a disconnect once the answer is complete.
            await complete.wait()
            return {"type": "http.disconnect"}
        sent += 1
        return {"type": "http.request", "body": piece, "more_body": sent < last}

    async def send(message: Message) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif not message.get("more_body", False):
            complete.set()

    await app(request.scope(), receive, send)
    if status != request.expect:
        raise UnexpectedAnswer(
            f"{request.method} {request.path} answered {status}, not {request.expect}"
        )


def cpu_per_request(
    loop: asyncio.AbstractEventLoop, app: ASGIApp, request: Request, count: int
) -> float:
    """This process's CPU seconds (every thread's, the access log's writer included) per
    request over `count` requests answered one after another."""

    async def batch() -> None:
        for _ in range(count):
            await answer(app, request)

    started = time.process_time()
    loop.run_until_complete(batch())
    return (time.process_time() - started) / count
