"""A whole answer in plain ASGI, and the download headers made once per object.

A download's headers are the same on every request for one object (its ETag, type and
name) and one mtime (Last-Modified): they are made once and kept for the objects read
lately, not encoded again on every request.
"""

from email.utils import formatdate
from functools import lru_cache
from urllib.parse import quote

from starlette.responses import Response

from files_service.store.storage import KNOWN_OBJECTS, ObjectMeta


class RawAnswer(Response):
    """`status`, `headers` as sent (lower-case names, bytes, Content-Length included where
    there is one) and `body`: a Response with nothing to work out, sent as Starlette sends
    any, in two messages."""

    def __init__(self, status: int, headers: list[tuple[bytes, bytes]], body: bytes = b"") -> None:
        self.status_code = status
        self.raw_headers = headers
        self.body = body
        self.background = None


@lru_cache(maxsize=KNOWN_OBJECTS)
def object_headers(meta: ObjectMeta) -> tuple[tuple[bytes, bytes], ...]:
    """What every whole answer of the object says of it: ETag, type, name, nosniff."""
    return (
        (b"etag", f'"{meta.sha256}"'.encode()),
        (b"content-type", meta.content_type.encode("latin-1")),
        (b"content-disposition", content_disposition(meta.filename).encode("latin-1")),
        (b"x-content-type-options", b"nosniff"),
    )


@lru_cache(maxsize=KNOWN_OBJECTS)
def http_date(seconds: int) -> bytes:
    """A Last-Modified value (RFC 9110 5.6.7) for a time in whole seconds."""
    return formatdate(seconds, usegmt=True).encode()


def content_disposition(filename: str) -> str:
    """RFC 6266: an ASCII fallback name, and the exact name as UTF-8 in filename*."""
    fallback = "".join(
        char if char.isascii() and char.isprintable() and char not in '"\\' else "_"
        for char in filename
    )
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"
