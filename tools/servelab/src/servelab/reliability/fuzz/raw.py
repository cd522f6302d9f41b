"""A raw HTTP/1.1 exchange over a socket: the request exactly as written (bytes no HTTP
client library would send), the answer read until the server closes or a deadline."""

from __future__ import annotations

import contextlib
import json
import socket
import time
from dataclasses import dataclass

# A server that has not answered in this long is hung, for the fuzz's purposes.
ANSWER_TIMEOUT_S = 10.0
_MAX_ANSWER = 1 << 20


@dataclass(frozen=True)
class RawAnswer:
    """What came back: `status` None when the server closed without a status line or
    never answered (`hung`)."""

    status: int | None
    headers: dict[str, str]
    body: bytes
    elapsed_s: float
    hung: bool = False

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    def is_json_error(self) -> bool:
        """The services' error shape: a JSON object with an `error` member."""
        if self.content_type != "application/json":
            return False
        try:
            document = json.loads(self.body)
        except ValueError:
            return False
        return isinstance(document, dict) and isinstance(document.get("error"), dict)


def request_bytes(
    method: str,
    target: bytes | str,
    headers: dict[str, str | bytes] | None = None,
    body: bytes = b"",
) -> bytes:
    """A request with Host, Content-Length (for a body) and Connection: close added."""
    raw_target = target.encode() if isinstance(target, str) else target
    lines = [method.encode() + b" " + raw_target + b" HTTP/1.1", b"Host: 127.0.0.1"]
    for name, value in (headers or {}).items():
        lines.append(name.encode() + b": " + (value.encode() if isinstance(value, str) else value))
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append(b"Content-Length: " + str(len(body)).encode())
    lines.append(b"Connection: close")
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


def exchange(
    port: int, request: bytes, timeout_s: float = ANSWER_TIMEOUT_S, max_answer: int = _MAX_ANSWER
) -> RawAnswer:
    """Send `request` to 127.0.0.1:`port` and read the answer until the server closes, or
    `max_answer` bytes of it."""
    started = time.monotonic()
    deadline = started + timeout_s
    received = bytearray()
    hung = False
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as sock:
        # A server may refuse part of it (a huge header) and answer: read what it said.
        with contextlib.suppress(OSError):
            sock.sendall(request)
        while len(received) < max_answer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                hung = True
                break
            sock.settimeout(remaining)
            try:
                chunk = sock.recv(65536)
            except TimeoutError:
                hung = not _complete(bytes(received))
                break
            except OSError:
                break
            if not chunk:
                break
            received += chunk
            if _complete(bytes(received)):
                break
    elapsed = time.monotonic() - started
    status, headers, body = parse_answer(bytes(received))
    return RawAnswer(status, headers, body, elapsed, hung=hung and status is None)


def head_then_get(
    port: int, target: str, timeout_s: float = ANSWER_TIMEOUT_S
) -> tuple[RawAnswer, RawAnswer]:
    """A HEAD and a GET of `target` sent at once on one connection, and their answers: the
    GET's must follow the HEAD's headers, with no body between and the connection kept."""
    started = time.monotonic()
    request = (
        f"HEAD {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        f"GET {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    received = bytearray()
    with socket.create_connection(("127.0.0.1", port), timeout=timeout_s) as sock:
        sock.sendall(request.encode())
        while chunk := sock.recv(65536):
            received += chunk
    elapsed = time.monotonic() - started
    head, separator, rest = bytes(received).partition(b"\r\n\r\n")
    return RawAnswer(*parse_answer(head + separator), elapsed), RawAnswer(
        *parse_answer(rest), elapsed
    )


def _complete(data: bytes) -> bool:
    """A whole answer with a Content-Length has arrived (keep-alive servers may not close)."""
    head, sep, body = data.partition(b"\r\n\r\n")
    if not sep:
        return False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            try:
                return len(body) >= int(value.strip())
            except ValueError:
                return False
    return False


def parse_answer(data: bytes) -> tuple[int | None, dict[str, str], bytes]:
    """Status, headers (lower-case names) and body (de-chunked) of a raw answer."""
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/") or not parts[1].isdigit():
        return None, {}, b""
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _dechunk(body)
    return int(parts[1]), headers, body


def _dechunk(data: bytes) -> bytes:
    out = bytearray()
    while data:
        size_line, _, rest = data.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            break
        if size == 0:
            break
        out += rest[:size]
        data = rest[size + 2 :]
    return bytes(out)
