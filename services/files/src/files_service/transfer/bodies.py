"""Request bodies: media types, and one multipart file field streamed to a writer.

The multipart path runs python-multipart's streaming parser over request.stream(),
so the file part goes straight to its destination: no spooled copy, no second pass.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import ClientDisconnect, Request

if TYPE_CHECKING:
    # Declared only for type checkers (python-multipart defines it under TYPE_CHECKING).
    from python_multipart.multipart import MultipartCallbacks

from files_service.store.checksums import Sha256Counter
from servicekit.errors import ApiError

Writer = Callable[[memoryview], None]

MULTIPART_FORM_DATA = "multipart/form-data"


@dataclass(frozen=True, slots=True)
class ContentType:
    media_type: str
    params: dict[bytes, bytes]


@dataclass(frozen=True, slots=True)
class FilePart:
    filename: str | None
    content_type: str | None


def content_type(request: Request) -> ContentType:
    media_type, params = parse_options_header(request.headers.get("content-type"))
    return ContentType(media_type.decode("latin-1"), params)


# The most of a refused body read (and dropped) before the answer is sent.
REFUSED_BODY_DRAIN = 1 << 20


async def require_media_type(request: Request, expected: str) -> None:
    """415 unless the body is of the `expected` type. The refused body is read first (up
    to REFUSED_BODY_DRAIN), so a client still sending it gets the 415 rather than a
    connection closed mid-upload."""
    found = content_type(request).media_type or "none"
    if found != expected:
        await _drain(request, REFUSED_BODY_DRAIN)
        raise ApiError(
            415, "unsupported_media_type", f"expected a body of type {expected}, got {found}"
        )


async def _drain(request: Request, limit: int) -> None:
    seen = 0
    try:
        async for chunk in request.stream():
            seen += len(chunk)
            if seen >= limit:
                return
    except (ClientDisconnect, RuntimeError):
        # The client left, or a form parser already consumed the stream ("Stream
        # consumed"): nothing is left to read either way.
        return


class _FileFieldSink:
    """MultipartParser callbacks that send the data of one named file part to a writer."""

    def __init__(self, field: bytes, write: Writer) -> None:
        self._field = field
        self._write = write
        self._header_name = bytearray()
        self._header_value = bytearray()
        self._headers: dict[bytes, bytes] = {}
        self._in_field = False
        self.part: FilePart | None = None
        self.complete = False

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_part_begin": self._headers.clear,
            "on_header_field": self._on_header_field,
            "on_header_value": self._on_header_value,
            "on_header_end": self._on_header_end,
            "on_headers_finished": self._on_headers_finished,
            "on_part_data": self._on_part_data,
            "on_part_end": self._on_part_end,
            "on_end": self._on_end,
        }

    def _on_header_field(self, data: bytes, start: int, end: int) -> None:
        self._header_name += data[start:end]

    def _on_header_value(self, data: bytes, start: int, end: int) -> None:
        self._header_value += data[start:end]

    def _on_header_end(self) -> None:
        self._headers[bytes(self._header_name).lower()] = bytes(self._header_value).strip()
        self._header_name.clear()
        self._header_value.clear()

    def _on_headers_finished(self) -> None:
        _, options = parse_options_header(self._headers.get(b"content-disposition"))
        if options.get(b"name") != self._field:
            return
        if self.part is not None:
            field = self._field.decode("latin-1")
            raise ApiError(400, "bad_request", f"multipart body has more than one {field!r} field")
        filename = options.get(b"filename")
        part_type = self._headers.get(b"content-type")
        self.part = FilePart(
            filename=filename.decode("utf-8", "replace") if filename is not None else None,
            content_type=part_type.decode("latin-1") if part_type is not None else None,
        )
        self._in_field = True

    def _on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self._in_field:
            self._write(memoryview(data)[start:end])

    def _on_part_end(self) -> None:
        self._in_field = False

    def _on_end(self) -> None:
        self.complete = True


async def read_multipart_file(
    request: Request,
    params: dict[bytes, bytes],
    write: Writer,
    *,
    field: str = "file",
    body_digest: Sha256Counter | None = None,
) -> FilePart:
    """Stream the part named `field` of a multipart/form-data body into `write`.

    `body_digest`, when given, also hashes the body as sent (for Content-Digest).
    """
    boundary = params.get(b"boundary")
    if not boundary:
        raise ApiError(400, "bad_request", "multipart/form-data needs a boundary parameter")
    sink = _FileFieldSink(field.encode(), write)
    try:
        parser = MultipartParser(boundary, sink.callbacks())
        async for chunk in request.stream():
            parser.write(chunk)
            if body_digest is not None:
                body_digest.update(chunk)
    except FormParserError as exc:
        raise ApiError(400, "malformed_multipart", f"malformed multipart body: {exc}") from exc
    if not sink.complete:
        raise ApiError(
            400, "malformed_multipart", "multipart body ends before its closing boundary"
        )
    if sink.part is None:
        raise ApiError(422, "missing_file", f"multipart body has no {field!r} field")
    return sink.part
