"""BearerAuth: servicekit.auth's policy as ASGI middleware, for FastAPI/Starlette apps.

Middleware rather than a FastAPI dependency: a dependency runs after FastAPI has read and
parsed a form body, so a multipart upload without a token would be spooled to disk before
the 401. This answers before the app receives a byte of the body. Standard library only.
"""

from __future__ import annotations

import json

from servicekit.asgi_types import ASGIApp, Receive, Scope, Send
from servicekit.auth import BearerPolicy
from servicekit.errors import error_body


class BearerAuth:
    """`app.add_middleware(BearerAuth, policy=BearerPolicy(token))`."""

    def __init__(self, app: ASGIApp, policy: BearerPolicy) -> None:
        self.app = app
        self.policy = policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        denial = self.policy.check(scope["method"], scope["path"], _authorization(scope))
        if denial is None:
            await self.app(scope, receive, send)
            return
        body = json.dumps(error_body(denial.code, denial.message)).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *((name.lower().encode(), value.encode()) for name, value in denial.headers.items()),
        ]
        await send({"type": "http.response.start", "status": denial.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _authorization(scope: Scope) -> str | None:
    for name, value in scope["headers"]:
        if name == b"authorization":
            return bytes(value).decode("latin-1")
    return None
