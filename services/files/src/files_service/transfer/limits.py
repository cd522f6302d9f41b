"""MAX_UPLOAD_SIZE for every endpoint, with the JSON error shape.

A declared Content-Length over the limit is refused before a byte of the body is
read; a body without one (chunked) is cut off as soon as it crosses the limit.
"""

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from servicekit.errors import ApiError
from servicekit.errors.fastapi import error_response


class BodySizeLimit:
    def __init__(self, app: ASGIApp, max_body_size: int) -> None:
        self.app = app
        self.max_body_size = max_body_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > self.max_body_size:
            response = error_response(413, "payload_too_large", self._message())
            await response(scope, receive, send)
            return

        received = 0

        async def receive_within_limit() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body_size:
                    raise ApiError(413, "payload_too_large", self._message())
            return message

        await self.app(scope, receive_within_limit, send)

    def _message(self) -> str:
        return f"request body is larger than {self.max_body_size} bytes"
