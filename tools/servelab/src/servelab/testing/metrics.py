"""Reading a service's Prometheus metrics in tests: sample values from the text format,
and GET over uWSGI's own protocol on its unix socket, so a test asks the app server itself,
never the nginx in front."""

from __future__ import annotations

import re
import socket
import struct
from collections.abc import Mapping
from pathlib import Path

_SAMPLE = re.compile(r"^(?P<name>[a-zA-Z_:][\w:]*)(?:\{(?P<labels>.*)\})? (?P<value>\S+)$")
_LABEL = re.compile(r'(\w+)="((?:[^"\\]|\\.)*)"')


def sample(text: str, name: str, labels: Mapping[str, str] | None = None) -> float | None:
    """The value of the sample `name` whose labels include `labels`, or None."""
    wanted = dict(labels or {})
    for line in text.splitlines():
        match = _SAMPLE.match(line)
        if match is None or match["name"] != name:
            continue
        found = dict(_LABEL.findall(match["labels"] or ""))
        if all(found.get(key) == value for key, value in wanted.items()):
            return float(match["value"])
    return None


def requests_counted(text: str, route: str, method: str = "GET", status: str = "200") -> float:
    """http_requests_total for one route, method and status (0 if never counted)."""
    labels = {"route": route, "method": method, "status": status}
    return sample(text, "http_requests_total", labels) or 0.0


def get_uwsgi(
    socket_path: Path, path: str, headers: Mapping[str, str] | None = None
) -> tuple[int, bytes]:
    """GET `path` from uWSGI's `socket` (the uwsgi protocol nginx's uwsgi_pass speaks):
    the status and body of the raw HTTP answer."""
    env = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path,
        "REQUEST_URI": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "localhost",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "localhost",
    }
    env.update(
        {"HTTP_" + key.upper().replace("-", "_"): value for key, value in (headers or {}).items()}
    )
    body = b"".join(
        struct.pack("<H", len(k)) + k + struct.pack("<H", len(v)) + v
        for k, v in ((key.encode(), value.encode()) for key, value in env.items())
    )
    packet = struct.pack("<BHB", 0, len(body), 0) + body
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(socket_path))
        sock.sendall(packet)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, content = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), content
