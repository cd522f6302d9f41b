"""HeaderLimit: refuse a request whose headers are larger than nginx in front would take
(large_client_header_buffers: 8 KiB a header, 4 x 8 KiB in all), with a JSON 431 before
the app runs. An app server alone takes any size (uvicorn with httptools has no limit), so
without it a service answers a 70 KB header as if it were none. Standard library only.

    app.add_middleware(HeaderLimit)
"""

from __future__ import annotations

import json

from servicekit.asgi_types import ASGIApp, Receive, Scope, Send
from servicekit.errors import error_body

MAX_FIELD_BYTES = 8 * 1024
MAX_HEADER_BYTES = 32 * 1024


class HeaderLimit:
    def __init__(
        self,
        app: ASGIApp,
        max_field_bytes: int = MAX_FIELD_BYTES,
        max_header_bytes: int = MAX_HEADER_BYTES,
    ) -> None:
        self.app = app
        self.max_field_bytes = max_field_bytes
        self.max_header_bytes = max_header_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and self._too_large(scope["headers"]):
            body = json.dumps(
                error_body(
                    "request_header_fields_too_large",
                    "a request header is larger than this server accepts",
                )
            ).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ]
            await send({"type": "http.response.start", "status": 431, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

    def _too_large(self, headers: list[tuple[bytes, bytes]]) -> bool:
        # Each as on the wire: "name: value\r\n".
        sizes = [len(name) + len(value) + 4 for name, value in headers]
        return max(sizes, default=0) > self.max_field_bytes or sum(sizes) > self.max_header_bytes
