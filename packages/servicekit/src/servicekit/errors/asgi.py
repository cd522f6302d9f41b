"""The error shape answered in plain ASGI, for code that answers before any framework does
(servicekit.gate) or without one (an app's pure-ASGI routes). Standard library only."""

import json
from collections.abc import Mapping

from servicekit.asgi_types import Send
from servicekit.errors import CLIENT_CLOSED_REQUEST, ApiError, error_body


async def send_error(
    send: Send,
    status: int,
    code: str,
    message: str,
    headers: Mapping[str, str] | None = None,
) -> None:
    """Answer {"error": {"code", "message"}} with `status` and the extra `headers`."""
    await _send_json(send, status, error_body(code, message), headers)


async def send_api_error(send: Send, error: ApiError) -> None:
    """Answer `error` as the framework adapters do: its status, body and headers."""
    await _send_json(send, error.status, error.body(), error.headers)


async def send_client_closed(send: Send) -> None:
    """Answer a request whose client went away mid-body (CLIENT_CLOSED_REQUEST), empty."""
    headers = [(b"content-length", b"0")]
    await send({"type": "http.response.start", "status": CLIENT_CLOSED_REQUEST, "headers": headers})
    await send({"type": "http.response.body", "body": b""})


async def _send_json(
    send: Send, status: int, document: object, headers: Mapping[str, str] | None
) -> None:
    body = json.dumps(document).encode()
    raw = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *((name.lower().encode(), value.encode()) for name, value in (headers or {}).items()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})
