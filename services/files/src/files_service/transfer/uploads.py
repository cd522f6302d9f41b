"""Receiving an object for the production API: stream, verify, publish atomically."""

import re
from urllib.parse import unquote

from starlette.requests import Request

from files_service.store.checksums import Sha256Counter, check_digest, expected_digests
from files_service.store.storage import ObjectMeta, ObjectStore
from files_service.transfer.bodies import MULTIPART_FORM_DATA, content_type, read_multipart_file

DEFAULT_CONTENT_TYPE = "application/octet-stream"
_MEDIA_TYPE = re.compile(r"[\w!#$&^.+-]+/[\w!#$&^.+-]+(\s*;[ -~]*)?", re.ASCII)
_MAX_FILENAME = 255
# The longest `filename` query parameter taken (a 422 above it).
MAX_FILENAME_PARAMETER = 1024


async def receive_object(
    request: Request, store: ObjectStore, *, filename: str | None
) -> ObjectMeta:
    """Store the request's file: a multipart/form-data `file` field, or else the raw body.

    Nothing becomes visible unless the whole body arrived and matched any checksum
    header; the temp file goes away on every other path (abort, limit, disk full).
    """
    expected = expected_digests(request.headers)
    body_type = content_type(request)
    with store.upload() as upload:
        if body_type.media_type == MULTIPART_FORM_DATA:
            body = Sha256Counter() if expected.content is not None else None
            part = await read_multipart_file(
                request, body_type.params, upload.write, body_digest=body
            )
            filename, file_type = part.filename, part.content_type
            body_digest = body.digest() if body is not None else b""
        else:
            async for chunk in request.stream():
                upload.write(chunk)
            filename = filename or unquote(request.headers.get("x-filename", ""))
            file_type = request.headers.get("content-type")
            body_digest = upload.received.digest()
        check_digest("Content-Digest", expected.content, body_digest)
        check_digest("X-Checksum-SHA256", expected.file, upload.received.digest())
        return store.commit(
            upload, filename=display_name(filename), content_type=media_type_or_default(file_type)
        )


def display_name(raw: str | None) -> str | None:
    """The last path segment, printable characters only: a name to show, never a path."""
    name = (raw or "").replace("\\", "/").rsplit("/", 1)[-1]
    name = "".join(char for char in name if char.isprintable()).strip()[:_MAX_FILENAME]
    return None if name in ("", ".", "..") else name


def media_type_or_default(value: str | None) -> str:
    """A client's Content-Type, kept only if it is a well-formed media type."""
    value = (value or "").strip()
    return value if _MEDIA_TYPE.fullmatch(value) else DEFAULT_CONTENT_TYPE
