"""Answering a download of a stored object: conditional requests, ranges, X-Accel-Redirect."""

from datetime import UTC
from email.utils import formatdate, parsedate_to_datetime
from pathlib import Path
from urllib.parse import quote

import anyio
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response

from files_service import metrics
from files_service.store.cached_read import ReadMode, stat_and_read
from files_service.store.storage import ObjectMeta
from files_service.transfer.range_response import FileRangeResponse
from files_service.transfer.ranges import Unsatisfiable, parse_ranges
from servicekit.errors import ApiError


async def object_response(
    request: Request,
    meta: ObjectMeta,
    blob: Path,
    *,
    chunk_size: int,
    accel_redirect_prefix: str,
    read_mode: ReadMode,
) -> Response:
    try:
        if accel_redirect_prefix:
            # nginx reads the file: the stat alone (a few µs on the storage's local disk) runs
            # on the event loop, where a thread hop would cost more than it.
            stat, data = blob.stat(), None  # noqa: ASYNC240
        else:
            read_limit = chunk_size if _plain_get(request) else -1
            stat, data = await stat_and_read(read_mode, blob, read_limit)
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
    http_range = _range_to_answer(request.headers, etag, last_modified)
    ranges = None
    if http_range is not None:
        # A Range, answered here (FileResponse would parse it with a private method of its
        # own and answer a malformed one with a plain-text 400).
        try:
            ranges = parse_ranges(http_range, stat.st_size)
        except Unsatisfiable:
            raise ApiError(
                416,
                "range_not_satisfiable",
                f"range not satisfiable for {stat.st_size} bytes",
                headers={"Content-Range": f"bytes */{stat.st_size}"},
            ) from None
    # Opened before the answer starts, and sent from that descriptor: a DELETE meanwhile
    # leaves the bytes readable, and one before it is a clean 404. Not by path (ASGI
    # pathsend, as granian offers): the server would open the path after the headers.
    # A HEAD sends none of them: its answer is the stat's.
    file = None
    if request.method != "HEAD":
        try:
            file = await anyio.open_file(blob, "rb")
        except FileNotFoundError:
            raise ApiError(404, "not_found", f"no object {meta.id}") from None
    del headers["Content-Type"]
    return FileRangeResponse(
        file,
        ranges,
        size=stat.st_size,
        content_type=meta.content_type,
        headers=headers,
        chunk_size=chunk_size,
    )


def _plain_get(request: Request) -> bool:
    """A GET of the whole file, unconditional: such a small file is best read in one go."""
    return request.method == "GET" and not {"range", "if-none-match", "if-modified-since"} & set(
        request.headers
    )


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


def _range_to_answer(headers: Headers, etag: str, last_modified: str) -> str | None:
    """The Range header to answer, or None: none sent, or its If-Range is stale (RFC 9110
    13.1.5: the answer is then the whole file)."""
    http_range = headers.get("range")
    if_range = headers.get("if-range")
    if http_range is None or (if_range is not None and if_range not in (etag, last_modified)):
        return None
    return http_range
