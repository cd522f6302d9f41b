"""The image a request sends, in any of three bodies, within MAX_BODY_BYTES:

- application/json `{"base64": "..."}`: the write-up's body (base64 costs a third more
  bytes and a decode);
- the raw image (image/jpeg, image/png, application/octet-stream): no base64 at all;
- multipart/form-data with the image in the field `file` (a browser form, `curl -F`).

A declared Content-Length over the limit is refused before a byte is read; a body
without one (chunked) is cut off as soon as it crosses the limit. A body within the limit
is read whole before anything else is judged, so that a client still sending it gets its
answer (a 404 or 415 sent mid-body would reach it as a reset connection).
"""

from __future__ import annotations

import binascii
from typing import TYPE_CHECKING

import pybase64
from pydantic import BaseModel, ConfigDict, ValidationError
from python_multipart.exceptions import FormParserError
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

from health_code_service.errors import ApiError

if TYPE_CHECKING:
    # Declared only for type checkers (python-multipart defines it under TYPE_CHECKING).
    from python_multipart.multipart import MultipartCallbacks

JSON = "application/json"
MULTIPART = "multipart/form-data"
RAW_TYPES = frozenset({"image/jpeg", "image/png", "application/octet-stream"})
MEDIA_TYPES = (JSON, *sorted(RAW_TYPES), MULTIPART)
FILE_FIELD = b"file"


class Base64Body(BaseModel):
    """The write-up's request body."""

    model_config = ConfigDict(extra="ignore")

    base64: str


def too_large(limit: int) -> ApiError:
    return ApiError(413, "payload_too_large", f"request body is larger than {limit} bytes")


async def read_body(request: Request, limit: int) -> bytes:
    """The whole body, or a 413 as soon as it is known to exceed `limit` bytes."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise too_large(limit)
    return bytes(body)


def decode_base64_json(body: bytes) -> bytes:
    try:
        text = Base64Body.model_validate_json(body).base64
    except ValidationError as error:
        first = error.errors()[0]
        if first["type"] == "json_invalid":
            message = f"body is not valid JSON: {first['msg']}"
            raise ApiError(400, "invalid_json", message) from None
        raise ApiError(
            400, "invalid_body", 'body must be a JSON object {"base64": "<image as base64>"}'
        ) from None
    try:
        return pybase64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ApiError(400, "bad_base64", "`base64` is not valid base64") from None


class _FileField:
    """MultipartParser callbacks that keep the data of the part named `file`."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.found = False
        self.complete = False
        self._in_field = False
        self._name = bytearray()
        self._value = bytearray()
        self._disposition = b""

    def callbacks(self) -> MultipartCallbacks:
        return {
            "on_header_field": lambda data, start, end: self._name.extend(data[start:end]),
            "on_header_value": lambda data, start, end: self._value.extend(data[start:end]),
            "on_header_end": self._on_header_end,
            "on_headers_finished": self._on_headers_finished,
            "on_part_data": self._on_part_data,
            "on_part_end": self._on_part_end,
            "on_end": self._on_end,
        }

    def _on_header_end(self) -> None:
        if bytes(self._name).lower() == b"content-disposition":
            self._disposition = bytes(self._value).strip()
        self._name.clear()
        self._value.clear()

    def _on_headers_finished(self) -> None:
        _, options = parse_options_header(self._disposition)
        self._disposition = b""
        if options.get(b"name") != FILE_FIELD:
            return
        if self.found:
            raise ApiError(400, "bad_request", "multipart body has more than one 'file' field")
        self.found = self._in_field = True

    def _on_part_data(self, data: bytes, start: int, end: int) -> None:
        if self._in_field:
            self.data += data[start:end]

    def _on_part_end(self) -> None:
        self._in_field = False

    def _on_end(self) -> None:
        self.complete = True


def multipart_file(body: bytes, params: dict[bytes, bytes]) -> bytes:
    boundary = params.get(b"boundary")
    if not boundary:
        raise ApiError(400, "bad_request", "multipart/form-data needs a boundary parameter")
    field = _FileField()
    try:
        parser = MultipartParser(boundary, field.callbacks())
        parser.write(body)
    except FormParserError as error:
        message = f"malformed multipart body: {error}"
        raise ApiError(400, "malformed_multipart", message) from None
    if not field.complete:
        raise ApiError(
            400, "malformed_multipart", "multipart body ends before its closing boundary"
        )
    if not field.found:
        raise ApiError(422, "missing_file", "multipart body has no 'file' field")
    return bytes(field.data)


def image_bytes(content_type: str | None, body: bytes) -> bytes:
    """The image's encoded bytes (JPEG, PNG, ...) from whichever body the request sent."""
    media_type, params = parse_options_header(content_type)
    kind = media_type.decode("latin-1").lower()
    if kind not in MEDIA_TYPES:
        raise ApiError(
            415,
            "unsupported_media_type",
            f"send the image as one of {', '.join(MEDIA_TYPES)}, not {kind or 'no type'}",
        )
    if kind == JSON:
        return decode_base64_json(body)
    if kind == MULTIPART:
        return multipart_file(body, params)
    return body
