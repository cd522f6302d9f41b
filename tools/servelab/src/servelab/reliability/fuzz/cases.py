"""The hand-written cases: requests an OpenAPI schema cannot generate, as raw bytes.

Each generator returns `Case`s of one class. A case passes when the answer comes within
raw.ANSWER_TIMEOUT_S, is no 5xx, and is the JSON error shape when it is a 4xx; a case
whose input is plain bad (`success_ok` False) must be refused, not served.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from servelab.reliability.fuzz.raw import request_bytes
from servelab.spec.reliability import Fuzz

BIG_ID = 2**63
# The sizes a user reported: a 70 KB header, a 5,000-character query string (and one past
# nginx's 8 KiB line buffer).
HUGE_HEADER = 70_000
HUGE_QUERIES = (5_000, 20_000)
# Decompression bombs: gzip of this many zero bytes; a PNG this many pixels a side.
GZIP_BOMB_BYTES = 100 * 2**20
PNG_BOMB_SIDE = 20_000
# Images under any pixel limit with one side past every decoder's (width, height): a few
# dozen KB each; one took a worker to 21.9 GiB before each side was checked.
EXTREME_SIDES = ((1, 24_000_000), (24_000_000, 1))
# A flat grey 8-bit image this many pixels a side: 36,000,000 pixels, past health-code's
# MAX_PIXELS (25,000,000) with each side within MAX_IMAGE_SIDE (16,384); 36 MB of pixels
# (108 MB as RGB) from about 45 KB.
RATIO_SIDE = 6_000
RATIO_GREY = 0x80
# JSON nested this deep: past any parser's recursion limit (Python's is 1,000).
NESTING_DEPTHS = (1_000, 100_000)
# The id of an object every family that has `ids` or `json_bodies` holds (seeded or stored).
SOME_ID = "1"


@dataclass(frozen=True)
class Case:
    klass: str
    name: str
    request: bytes
    success_ok: bool = False


def _auth(token: str, more: dict[str, str | bytes] | None = None) -> dict[str, str | bytes]:
    return {"Authorization": f"Bearer {token}", **(more or {})}


def _case(
    klass: str,
    name: str,
    method: str,
    target: bytes | str,
    headers: dict[str, str | bytes] | None = None,
    body: bytes = b"",
    ok: bool = False,
) -> Case:
    return Case(klass, name, request_bytes(method, target, headers, body), ok)


def _get(
    klass: str, name: str, target: bytes | str, ok: bool = False, header: bytes | None = None
) -> Case:
    """A GET of `target`, with `header` in X-Fuzz where given."""
    return _case(klass, name, "GET", target, None if header is None else {"X-Fuzz": header}, ok=ok)


def non_utf8(family: Fuzz, token: str) -> list[Case]:
    klass, read = "non-UTF-8 bytes", family.read
    cases = [
        _get(klass, "in the path", read.encode() + b"/\xff\xfe"),
        _get(klass, "in the query", read.encode() + b"?q=\xff\xfe&word=\xc3\x28", True),
        _get(klass, "percent-encoded in the query", read + "?q=%ff%fe&word=%c3%28", True),
        _get(klass, "in a header", read, True, header=b"\xff\xfe\xfd"),
    ]
    if family.upload:
        headers = _auth(token, {"Content-Type": "application/json", "X-Filename": b"\xff.bin"})
        body = b'{"command": "\xff\xfe\xc3\x28"}'
        raw = family.upload_type == "application/octet-stream"
        cases.append(_case(klass, "in a JSON body", "POST", family.upload, headers, body, raw))
    return cases


def nul_bytes(family: Fuzz, token: str) -> list[Case]:
    klass, read = "NUL bytes", family.read
    cases = [
        _get(klass, "encoded in the path", read + "/a%00b"),
        _get(klass, "raw in the path", read.encode() + b"/a\x00b"),
        _get(klass, "encoded in the query", read + "?q=a%00b&word=a%00b", True),
        _get(klass, "raw in a header", read, header=b"a\x00b"),
    ]
    if family.upload:
        headers = _auth(token, {"Content-Type": family.upload_type})
        raw = family.upload_type == "application/octet-stream"
        cases.append(_case(klass, "in the body", "POST", family.upload, headers, bytes(1024), raw))
    return cases


def huge_headers(family: Fuzz, token: str) -> list[Case]:
    many: dict[str, str | bytes] = {f"X-Fuzz-{n}": "a" * 1000 for n in range(100)}
    return [
        _get("huge headers", "one 70 KB header", family.read, header=b"a" * HUGE_HEADER),
        _case("huge headers", "100 headers of 1 KB", "GET", family.read, many),
    ]


def huge_queries(family: Fuzz, token: str) -> list[Case]:
    return [
        _get("huge query strings", f"{size:,} characters", f"{family.read}?word={'a' * size}", True)
        for size in HUGE_QUERIES
    ]


def big_ids(family: Fuzz, token: str) -> list[Case]:
    values = (str(BIG_ID), str(2**64), "-1", "0", "1e9", "0x10")
    return [
        _get("ids 2**63 and negative", f"{path.split('?')[0]} with {value}", path.format(id=value))
        for path in family.ids
        for value in values
    ]


_TRAVERSALS = (
    "/../../../../etc/passwd",
    "/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/..%2f..%2f..%2fetc%2fpasswd",
    "/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "/.%2e/.%2e/etc/passwd",
    "/..\\..\\etc\\passwd",
    "//etc/passwd",
    "/etc/passwd%00.json",
)


def path_traversal(family: Fuzz, token: str) -> list[Case]:
    klass = "traversal in the path"
    prefixes = sorted(
        {"", family.read, *(path.split("{id}")[0].rstrip("/") for path in family.ids)}
    )
    cases = [
        _get(klass, f"{prefix or '/'} + {form}", prefix + form)
        for prefix in prefixes
        for form in _TRAVERSALS
    ]
    cases.append(_get(klass, "absolute-form target", "http://127.0.0.1/../../etc/passwd"))
    return cases


_FILENAMES = (
    "../../../etc/passwd",
    "/etc/passwd",
    "..%2f..%2fetc%2fpasswd",
    "a%00.txt",
    "..\\..\\x",
)


def filename_traversal(family: Fuzz, token: str) -> list[Case]:
    """Traversal in every filename form an upload takes: ?filename=, X-Filename, and the
    multipart part's filename. A name is metadata (objects are stored by id), so an upload
    may succeed; what is checked is that nothing breaks."""
    if family.upload is None or family.upload_type != "application/octet-stream":
        return []
    klass, upload = "traversal in a filename", family.upload
    raw = _auth(token, {"Content-Type": "application/octet-stream"})
    boundary = "fuzzboundary"
    multipart = _auth(token, {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    cases: list[Case] = []
    for name in _FILENAMES:
        body = (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            f"Content-Type: application/octet-stream\r\n\r\nx\r\n--{boundary}--\r\n"
        ).encode()
        named = {**raw, "X-Filename": name}
        cases += [
            _case(klass, f"?filename={name}", "POST", f"{upload}?filename={name}", raw, b"x", True),
            _case(klass, f"X-Filename: {name}", "POST", upload, named, b"x", True),
            _case(klass, f"multipart filename={name}", "POST", upload, multipart, body, True),
        ]
    return cases


RANGES = (
    "bytes=0-0",
    "bytes=-1",
    "bytes=999-",
    "bytes=1000-",
    "bytes=5-2",
    "bytes=0-18446744073709551616",
    "bytes=-0",
    "bytes=abc",
    "bytes=0-1,2-3,4-5",
    "items=0-1",
    "bytes=" + ",".join(f"{n}-{n}" for n in range(200)),
)


def range_cases(family: Fuzz, object_path: str) -> list[Case]:
    """Range edge cases on a stored object of 1,000 bytes (`object_path`)."""
    return [
        _case("Range edge cases", value[:40], "GET", object_path, {"Range": value}, ok=True)
        for value in RANGES
    ]


def gzip_bomb(size: int = GZIP_BOMB_BYTES) -> bytes:
    """`size` zero bytes, gzip-compressed (about a thousandth of the size)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(2**20)
    out = [compressor.compress(block) for _ in range(size // len(block))]
    out.append(compressor.flush())
    return b"".join(out)


def png_bomb(side: int = PNG_BOMB_SIDE) -> bytes:
    """A `side` x `side` 1-bit greyscale PNG of zeros: a few dozen KB that decode to
    side² pixels."""
    return png_of(side, side)


@cache
def png_of(width: int, height: int, depth: int = 1, grey: int = 0) -> bytes:
    """A `width` x `height` greyscale PNG of `depth` bits a pixel, every pixel's bits
    `grey` (one byte's worth, repeated), its rows compressed together."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    header = struct.pack(">IIBBBBB", width, height, depth, 0, 0, 0, 0)
    compressor = zlib.compressobj(9)
    row = b"\x00" + bytes([grey]) * ((width * depth + 7) // 8)
    rows_at_once = max(1, 2**20 // len(row))
    block = row * rows_at_once
    pieces = [compressor.compress(block) for _ in range(height // rows_at_once)]
    pieces.append(compressor.compress(row * (height % rows_at_once)))
    pieces.append(compressor.flush())
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", b"".join(pieces))
        + chunk(b"IEND", b"")
    )


def extreme_images(family: Fuzz, token: str) -> list[Case]:
    """Each extreme aspect ratio to every path that decodes an image."""
    headers = _auth(token, {"Content-Type": "image/png"})
    return [
        _case(
            "extreme aspect ratios",
            f"{path} {width} x {height} PNG",
            "POST",
            path,
            headers,
            png_of(width, height),
        )
        for path in family.images
        for width, height in EXTREME_SIDES
    ]


def decompression_ratio(family: Fuzz, token: str) -> list[Case]:
    """A flat grey PNG of a few dozen KB whose sides are both within every side limit but
    whose area is past the pixel limit, to every path that decodes an image: only the
    area, checked before decoding, stands between it and a worker decoding it to over a
    thousand times its size."""
    headers = _auth(token, {"Content-Type": "image/png"})
    image = png_of(RATIO_SIDE, RATIO_SIDE, depth=8, grey=RATIO_GREY)
    name = f"{RATIO_SIDE} x {RATIO_SIDE} grey PNG of {len(image) >> 10} KB"
    return [
        _case("decompression ratio", f"{path} {name}", "POST", path, headers, image)
        for path in family.images
    ]


def nested(depth: int, shape: str) -> bytes:
    """A JSON document `depth` levels deep: arrays in arrays or objects in objects."""
    if shape == "arrays":
        return b"[" * depth + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


def nested_json(family: Fuzz, token: str) -> list[Case]:
    """Arrays and objects nested past any recursion limit to every JSON body."""
    headers = _auth(token, {"Content-Type": "application/json"})
    return [
        _case(
            "nested JSON",
            f"{method} {path} {shape} {depth:,} deep",
            method,
            path.format(id=SOME_ID),
            headers,
            nested(depth, shape),
        )
        for method, path in family.json_bodies
        for depth in NESTING_DEPTHS
        for shape in ("arrays", "objects")
    ]


def _get_paths(family: Fuzz) -> list[str]:
    paths = family.heads if family.heads is not None else (family.read, *family.ids)
    return [path.format(id=SOME_ID) for path in paths]


def head_requests(family: Fuzz, token: str) -> list[Case]:
    """HEAD on every GET path: answered as GET without a body, never a 405."""
    return [
        _case("HEAD on GET routes", f"HEAD {path}", "HEAD", path, ok=True)
        for path in _get_paths(family)
    ]


def wrong_methods(family: Fuzz, token: str) -> list[Case]:
    """A method no route at the path answers: a 405 names the ones that do in Allow."""
    return [
        _case("wrong methods", f"{method} {path}", method, path, _auth(token))
        for path in _get_paths(family)
        for method in ("PUT", "DELETE")
    ]


def bombs(family: Fuzz, token: str) -> list[Case]:
    if family.upload is None or family.bomb is None:
        return []
    if family.bomb == "png":
        headers = _auth(token, {"Content-Type": "image/png"})
        name, body, ok = f"{PNG_BOMB_SIDE}x{PNG_BOMB_SIDE} PNG", png_bomb(), False
    else:
        headers = _auth(token, {"Content-Type": family.upload_type, "Content-Encoding": "gzip"})
        # Stored as sent (the server never inflates it) is as good as refused.
        ok = family.upload_type == "application/octet-stream"
        name, body = f"gzip body of {GZIP_BOMB_BYTES >> 20} MiB", gzip_bomb()
    return [_case("decompression bombs", name, "POST", family.upload, headers, body, ok)]


GENERATORS = (
    non_utf8,
    nul_bytes,
    huge_headers,
    huge_queries,
    big_ids,
    path_traversal,
    filename_traversal,
    bombs,
    extreme_images,
    decompression_ratio,
    nested_json,
    head_requests,
    wrong_methods,
)


def hand_written(family: Fuzz, token: str) -> Iterator[Case]:
    """Every hand-written case for `family` but the Range ones (they need a stored object)."""
    for generate in GENERATORS:
        yield from generate(family, token)
