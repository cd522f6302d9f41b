"""The request a k6 script sends, for wrk and ab to send the same: method, URL, body.

Each script's request is rebuilt from the same environment (the endpoint's env): hello.js
GETs ENDPOINT; download.js GETs ENDPOINT for a file it first stores with POST /files (as
its setup() does), or FILE_ID, or ENDPOINT as it is with NO_UPLOAD=1; upload.js sends the
payload raw, as multipart or as base64 JSON (MODE); health-code.js posts a sample image
(BODY json, raw or multipart). The body goes to a file, as `ab -p` and wrk's Lua script
(loadtests/lib/request.lua) read it.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import httpx2

from servelab.bench.errors import BenchError
from servelab.bench.load.payload import generate_payload

# lib/payload.js: the multipart envelope and the default payload size.
BOUNDARY = "servelab0123456789"
FILENAME = "health.jpg"
FILE_CONTENT_TYPE = "image/jpeg"
MULTIPART_CONTENT_TYPE = f"multipart/form-data; boundary={BOUNDARY}"
_PAYLOAD_SIZE = 262144
_STORE_TIMEOUT_S = 30.0


class ToolRequestError(BenchError):
    """The script's request cannot be rebuilt for another tool."""


@dataclass(frozen=True)
class ToolRequest:
    method: str
    url: str
    body_file: Path | None = None
    content_type: str | None = None
    # The Authorization header a write sends (the stack's bearer token, docs/security.md).
    authorization: str | None = None


@dataclass(frozen=True)
class Source:
    """What a script reads besides its env: the service, the payload, where to write."""

    base_url: str
    env: Mapping[str, str]
    payload_file: Path | None
    loadtests: Path
    work_dir: Path

    def authorization(self) -> str | None:
        """`Bearer <API_TOKEN>` when the env holds the token (lib/auth.js), else None."""
        token = self.env.get("API_TOKEN")
        return f"Bearer {token}" if token else None

    def payload(self) -> bytes:
        if self.payload_file is not None:
            return self.payload_file.read_bytes()
        return generate_payload(int(self.env.get("PAYLOAD_SIZE", _PAYLOAD_SIZE)))

    def body(self, data: bytes) -> Path:
        path = self.work_dir / "tool-request.body"
        path.write_bytes(data)
        return path


def multipart(data: bytes) -> bytes:
    """lib/payload.js multipartBody: one form field `file` holding the bytes."""
    head = (
        f"--{BOUNDARY}\r\n"
        f'Content-Disposition: form-data; name="file"; filename="{FILENAME}"\r\n'
        f"Content-Type: {FILE_CONTENT_TYPE}\r\n\r\n"
    ).encode()
    return head + data + f"\r\n--{BOUNDARY}--\r\n".encode()


def _store(source: Source) -> str:
    """download.js's setup(): POST /files with the payload; the stored file's id."""
    url = f"{source.base_url}/files"
    auth = source.authorization()
    headers = {
        "Content-Type": "application/octet-stream",
        **({"Authorization": auth} if auth else {}),
    }
    try:
        answer = httpx2.post(
            url, content=source.payload(), headers=headers, timeout=_STORE_TIMEOUT_S
        )
        if answer.status_code == 201:
            return str(answer.json()["id"])
    except (httpx2.HTTPError, ValueError, KeyError) as error:
        raise ToolRequestError(f"POST {url} failed: {error}") from error
    raise ToolRequestError(f"POST {url} answered {answer.status_code}")


def _download(source: Source) -> ToolRequest:
    endpoint = source.env.get("ENDPOINT", "/files/download/stream/async_read")
    if source.env.get("NO_UPLOAD") == "1" and "FILE_ID" not in source.env:
        return ToolRequest("GET", source.base_url + endpoint)
    file_id = quote(source.env.get("FILE_ID") or _store(source), safe="")
    if "{id}" in endpoint:
        return ToolRequest("GET", source.base_url + endpoint.replace("{id}", file_id))
    separator = "&" if "?" in endpoint else "?"
    return ToolRequest("GET", f"{source.base_url}{endpoint}{separator}id={file_id}")


def _upload_mode(endpoint: str) -> str:
    """upload.js inferMode."""
    path = endpoint.split("?")[0]
    if path.startswith("/files/upload/single"):
        return "multipart"
    if path == "/files/upload/raw/json/base64decode":
        return "base64"
    return "raw"


def _encoded(
    data: bytes, kind: str, raw_type: str, document: Mapping[str, str]
) -> tuple[bytes, str]:
    """The body and its content type: the bytes as they are (`raw_type`), as multipart, or
    base64 in a JSON `document` (any other kind)."""
    if kind == "raw":
        return data, raw_type
    if kind == "multipart":
        return multipart(data), MULTIPART_CONTENT_TYPE
    # JSON.stringify's bytes: no spaces.
    encoded = json.dumps(
        {**document, "base64": base64.b64encode(data).decode()}, separators=(",", ":")
    )
    return encoded.encode(), "application/json"


def _upload(source: Source) -> ToolRequest:
    endpoint = source.env.get("ENDPOINT", "/files/upload/stream/async_read_and_disk_write")
    mode = source.env.get("MODE") or _upload_mode(endpoint)
    if mode not in ("raw", "multipart", "base64"):
        raise ToolRequestError(f"upload.js: MODE must be raw, multipart or base64, not {mode!r}")
    document = {"filename": FILENAME}
    body, content_type = _encoded(source.payload(), mode, "application/octet-stream", document)
    method = source.env.get("METHOD", "POST").upper()
    return ToolRequest(
        method, source.base_url + endpoint, source.body(body), content_type, source.authorization()
    )


def _health_code(source: Source) -> ToolRequest:
    usage = source.env.get("USAGE", "health-code")
    kind = source.env.get("BODY", "json")
    if kind not in ("json", "raw", "multipart"):
        raise ToolRequestError(f"health-code.js: BODY must be json, raw or multipart: {kind!r}")
    data = (source.loadtests / source.env.get("IMAGE", f"data/{usage}.jpg")).read_bytes()
    body, content_type = _encoded(data, kind, FILE_CONTENT_TYPE, {})
    return ToolRequest(
        "POST", f"{source.base_url}/analysis/{usage}", source.body(body), content_type
    )


SCRIPTS: Mapping[str, Callable[[Source], ToolRequest]] = {
    "hello.js": lambda source: ToolRequest(
        "GET", source.base_url + source.env.get("ENDPOINT", "/hello")
    ),
    "download.js": _download,
    "upload.js": _upload,
    "health-code.js": _health_code,
}


def tool_request(script: str, source: Source) -> ToolRequest:
    if script not in SCRIPTS:
        known = ", ".join(SCRIPTS)
        raise ToolRequestError(f"{script}: wrk and ab can send the requests of {known} only")
    return SCRIPTS[script](source)
