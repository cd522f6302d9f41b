"""RequestGate: in one ASGI pass, the checks that refuse a request before the app runs.

- headers larger than nginx in front would take (large_client_header_buffers: 8 KiB a
  header, 4 x 8 KiB in all): a JSON 431. An app server alone takes any size (uvicorn with
  httptools has no limit), so without it a service answers a 70 KB header as if it were none;
- servicekit.auth's bearer policy, when given one: its 401 or 403, answered before the app
  receives a byte of the body (a FastAPI dependency would run after a form body had been
  read and spooled to disk);
- the body size limit, when given one: a declared Content-Length over it is a 413 before a
  byte of the body is read; a body without one (chunked) is cut off with a 413 as soon as it
  crosses the limit.

They were three middlewares, each wrapping the call and each walking the headers: one pass
walks them once. Standard library only.

    app.add_middleware(RequestGate, policy=BearerPolicy(token), max_body_size=100 * 2**20)
"""

from __future__ import annotations

from servicekit.asgi_types import ASGIApp, Message, Receive, Scope, Send
from servicekit.auth import BearerPolicy
from servicekit.errors import ApiError
from servicekit.errors.asgi import send_error

MAX_FIELD_BYTES = 8 * 1024
MAX_HEADER_BYTES = 32 * 1024

_AUTHORIZATION = b"authorization"
_CONTENT_LENGTH = b"content-length"


class RequestGate:
    def __init__(
        self,
        app: ASGIApp,
        *,
        policy: BearerPolicy | None = None,
        max_body_size: int | None = None,
        max_field_bytes: int = MAX_FIELD_BYTES,
        max_header_bytes: int = MAX_HEADER_BYTES,
    ) -> None:
        self.app = app
        self.policy = policy
        self.max_body_size = max_body_size
        self.max_field_bytes = max_field_bytes
        self.max_header_bytes = max_header_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        authorization: bytes | None = None
        declared = b""
        total = 0
        largest = 0
        for name, value in scope["headers"]:
            # Each as on the wire: "name: value\r\n".
            size = len(name) + len(value) + 4
            total += size
            largest = max(largest, size)
            if name == _AUTHORIZATION:
                authorization = value
            elif name == _CONTENT_LENGTH:
                declared = value
        if largest > self.max_field_bytes or total > self.max_header_bytes:
            await send_error(
                send,
                431,
                "request_header_fields_too_large",
                "a request header is larger than this server accepts",
                {"connection": "close"},
            )
            return
        if self.policy is not None:
            credential = None if authorization is None else bytes(authorization).decode("latin-1")
            denial = self.policy.check(scope["method"], scope["path"], credential)
            if denial is not None:
                await send_error(send, denial.status, denial.code, denial.message, denial.headers)
                return
        if self.max_body_size is None:
            await self.app(scope, receive, send)
            return
        if declared.isdigit() and int(declared) > self.max_body_size:
            await send_error(send, 413, "payload_too_large", self._too_large())
            return
        await self.app(scope, self._within_limit(receive), send)

    def _within_limit(self, receive: Receive) -> Receive:
        limit = self.max_body_size or 0
        received = 0

        async def receive_within_limit() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise ApiError(413, "payload_too_large", self._too_large())
            return message

        return receive_within_limit

    def _too_large(self) -> str:
        return f"request body is larger than {self.max_body_size} bytes"
