"""Answering a download of a stored object: conditional requests, ranges, X-Accel-Redirect."""

import os
from datetime import UTC
from email.utils import formatdate, parsedate_to_datetime
from pathlib import Path
from urllib.parse import quote

import anyio
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    MalformedRangeHeader,
    RangeNotSatisfiable,
    Response,
)

from files_service import metrics
from files_service.storage import ObjectMeta
from servicekit.errors import ApiError


async def object_response(
    request: Request,
    meta: ObjectMeta,
    blob: Path,
    *,
    chunk_size: int,
    accel_redirect_prefix: str,
) -> Response:
    read_limit = -1 if accel_redirect_prefix or not _plain_get(request) else chunk_size
    try:
        stat, data = await anyio.to_thread.run_sync(_stat_and_read, blob, read_limit)
    except FileNotFoundError:
        raise ApiError(404, "not_found", f"no object {meta.id}") from None
    etag = f'"{meta.sha256}"'
    last_modified = formatdate(stat.st_mtime, usegmt=True)
    validators = {"ETag": etag, "Last-Modified": last_modified}
    if _not_modified(request.headers, etag, stat.st_mtime):
        return Response(status_code=304, headers=validators)
    headers = {
        **validators,
        "Content-Type": meta.content_type,
        "Content-Disposition": content_disposition(meta.filename),
        "X-Content-Type-Options": "nosniff",
    }
    whole = request.method == "GET" and "range" not in request.headers
    if accel_redirect_prefix:
        # nginx sends the file (sendfile, ranges, HEAD) from its internal location.
        headers["X-Accel-Redirect"] = f"{accel_redirect_prefix}objects/{meta.id}"
        metrics.served(stat.st_size, via="nginx", whole=whole)
        return Response(headers=headers)
    metrics.served(stat.st_size, via="app", whole=whole)
    if data is not None:
        return Response(data, headers=headers)
    _check_range(request.headers, etag, last_modified, stat.st_size)
    response = FileResponse(blob, headers=headers, stat_result=stat)
    response.chunk_size = chunk_size
    return response


def _plain_get(request: Request) -> bool:
    """A GET of the whole file, unconditional, to a server that does not send files itself
    (ASGI pathsend, as granian does): such a small file is best read in one go."""
    return (
        request.method == "GET"
        and not {"range", "if-none-match", "if-modified-since"} & set(request.headers)
        and "http.response.pathsend" not in request.scope.get("extensions", {})
    )


def _stat_and_read(blob: Path, read_limit: int) -> tuple[os.stat_result, bytes | None]:
    """The file's stat, and its bytes when it holds at most `read_limit` of them.

    Runs in one worker thread: FileResponse would open, read until an empty read and
    close, each in a thread of its own, which costs more than the read for small files.
    """
    with blob.open("rb") as file:
        stat = os.fstat(file.fileno())
        data = file.read() if stat.st_size <= read_limit else None
    return stat, data


def content_disposition(filename: str) -> str:
    """RFC 6266: an ASCII fallback name, and the exact name as UTF-8 in filename*."""
    fallback = "".join(
        char if char.isascii() and char.isprintable() and char not in '"\\' else "_"
        for char in filename
    )
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(filename, safe='')}"


def _not_modified(headers: Headers, etag: str, mtime: float) -> bool:
    """RFC 9110 13.1.2 and 13.1.3: If-None-Match wins; If-Modified-Since only without it."""
    if_none_match = headers.getlist("if-none-match")
    if if_none_match:
        tags = {
            tag.strip().removeprefix("W/") for value in if_none_match for tag in value.split(",")
        }
        return "*" in tags or etag in tags
    if_modified_since = headers.get("if-modified-since")
    if if_modified_since is None:
        return False
    try:
        since = parsedate_to_datetime(if_modified_since)
    except (TypeError, ValueError):
        return False
    if since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    return int(mtime) <= since.timestamp()


def _check_range(headers: Headers, etag: str, last_modified: str, size: int) -> None:
    """Turn a Range that FileResponse would refuse (in plain text) into a JSON 400 or 416.

    It asks FileResponse's own parser, so both agree on what is valid, and, like
    FileResponse, ignores a Range whose If-Range is stale (the answer is a full 200).
    """
    http_range = headers.get("range")
    if http_range is None:
        return
    if_range = headers.get("if-range")
    if if_range is not None and if_range not in (etag, last_modified):
        return
    try:
        FileResponse._parse_range_header(http_range, size)
    except MalformedRangeHeader as exc:
        raise ApiError(400, "bad_range", exc.content) from None
    except RangeNotSatisfiable:
        raise ApiError(
            416,
            "range_not_satisfiable",
            f"range not satisfiable for {size} bytes",
            headers={"Content-Range": f"bytes */{size}"},
        ) from None
