"""Answering a download of a stored object: conditional requests, ranges, X-Accel-Redirect.

A whole object is answered in two messages with headers made once per object
(transfer/answers.py), a part or a stream of it by FileRangeResponse.
"""

import os
from collections.abc import Iterable
from datetime import UTC
from email.utils import parsedate_to_datetime

import anyio
from starlette.responses import Response

from files_service import metrics
from files_service.store.cached_read import ReadMode, stat_and_read
from files_service.store.storage import ObjectMeta
from files_service.transfer.answers import RawAnswer, http_date, object_headers
from files_service.transfer.range_response import FileRangeResponse
from files_service.transfer.ranges import Unsatisfiable, parse_ranges
from servicekit.errors import ApiError

# The request headers a download reads; the others are not looked at.
_READ = frozenset({b"range", b"if-range", b"if-none-match", b"if-modified-since"})


def preconditions(raw_headers: Iterable[tuple[bytes, bytes]]) -> dict[bytes, list[str]]:
    """The request's Range, If-Range, If-None-Match and If-Modified-Since, each value kept:
    one pass over the headers, nothing else decoded."""
    found: dict[bytes, list[str]] = {}
    for name, value in raw_headers:
        if name in _READ:
            found.setdefault(name, []).append(value.decode("latin-1"))
    return found


async def object_answer(
    method: str,
    conditions: dict[bytes, list[str]],
    meta: ObjectMeta,
    blob: str,
    *,
    chunk_size: int,
    accel_redirect_prefix: str,
    read_mode: ReadMode,
) -> Response:
    """The answer to a GET or HEAD of the object `meta` whose bytes are in `blob`."""
    plain_get = method == "GET" and not conditions
    try:
        if accel_redirect_prefix:
            # nginx reads the file: the stat alone (a few µs on the storage's local disk) runs
            # on the event loop, where a thread hop would cost more than it; of a string, as
            # making a Path costs more than the stat.
            stat, data = os.stat(blob), None  # noqa: PTH116
        else:
            stat, data = await stat_and_read(read_mode, blob, chunk_size if plain_get else -1)
    except FileNotFoundError:
        raise ApiError(404, "not_found", f"no object {meta.id}") from None
    etag = f'"{meta.sha256}"'
    last_modified = http_date(int(stat.st_mtime))
    if _not_modified(conditions, etag, stat.st_mtime):
        return RawAnswer(304, [(b"etag", etag.encode()), (b"last-modified", last_modified)])
    headers = [*object_headers(meta), (b"last-modified", last_modified)]
    whole = method == "GET" and b"range" not in conditions
    if accel_redirect_prefix:
        # nginx sends the file (sendfile, ranges, HEAD) from its internal location.
        location = f"{accel_redirect_prefix}objects/{meta.id}".encode()
        metrics.served(stat.st_size, via="nginx", whole=whole)
        headers += [(b"content-length", b"0"), (b"x-accel-redirect", location)]
        return RawAnswer(200, headers)
    metrics.served(stat.st_size, via="app", whole=whole)
    if data is not None:
        return RawAnswer(200, [*headers, (b"content-length", str(len(data)).encode())], data)
    http_range = _range_to_answer(conditions, etag, last_modified.decode())
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
    if method != "HEAD":
        try:
            file = await anyio.open_file(blob, "rb")
        except FileNotFoundError:
            raise ApiError(404, "not_found", f"no object {meta.id}") from None
    return FileRangeResponse(
        file,
        ranges,
        size=stat.st_size,
        content_type=meta.content_type,
        headers={
            name.decode(): value.decode("latin-1")
            for name, value in headers
            if name != b"content-type"
        },
        chunk_size=chunk_size,
    )


def _not_modified(conditions: dict[bytes, list[str]], etag: str, mtime: float) -> bool:
    """RFC 9110 13.1.2 and 13.1.3: If-None-Match wins; If-Modified-Since only without it."""
    if_none_match = conditions.get(b"if-none-match")
    if if_none_match:
        tags = {
            tag.strip().removeprefix("W/") for value in if_none_match for tag in value.split(",")
        }
        return "*" in tags or etag in tags
    if_modified_since = conditions.get(b"if-modified-since")
    if not if_modified_since:
        return False
    try:
        since = parsedate_to_datetime(if_modified_since[0])
    except (TypeError, ValueError):
        return False
    if since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    return int(mtime) <= since.timestamp()


def _range_to_answer(
    conditions: dict[bytes, list[str]], etag: str, last_modified: str
) -> str | None:
    """The Range header to answer, or None: none sent, or its If-Range is stale (RFC 9110
    13.1.5: the answer is then the whole file)."""
    http_range = conditions.get(b"range")
    if_range = conditions.get(b"if-range")
    if not http_range or (if_range and if_range[0] not in (etag, last_modified)):
        return None
    return http_range[0]
