"""The request id: the caller's X-Request-ID when it is a safe token, else a new one.

nginx sets the header on every request it passes on (its own $request_id, or the client's
when valid), so the app's log line and nginx's carry the same id. A header value is only
taken when it is 1-128 characters of letters, digits and `.-_:`: it ends up in logs and
response headers, where anything longer or odder would be an injection vector.
"""

import re
import secrets
from contextvars import ContextVar

HEADER = "X-Request-ID"
_SAFE = re.compile(r"[A-Za-z0-9._:-]{1,128}")

# The id of the request this task or thread is answering, for the service's own logs.
current: ContextVar[str] = ContextVar("request_id", default="")


def request_id(header: str | None) -> str:
    """The id to use: `header` when it is a safe token, else 32 random hex digits (the
    shape of nginx's $request_id)."""
    if header is not None and _SAFE.fullmatch(header):
        return header
    return secrets.token_hex(16)
