"""wrk and ab beside k6: the script's request rebuilt, and each tool's command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from servelab.bench.load.payload import generate_payload
from servelab.bench.load.shape import Load
from servelab.bench.load.tool_requests import (
    MULTIPART_CONTENT_TYPE,
    Source,
    ToolRequest,
    ToolRequestError,
    tool_request,
)
from servelab.bench.load.tools import ToolError, ToolResult, tool_argv

BASE = "http://127.0.0.1:9"
WRK = Load(vus=100, duration_s=3, warmup_s=1)
AB = Load(vus=20, shape="ab", iterations=200, max_duration_s=600)
LOADTESTS = Path("loadtests")


def _source(tmp_path: Path, **env: str) -> Source:
    return Source(BASE, env, None, Path(__file__).parents[5] / "loadtests", tmp_path)


def test_hello_is_a_get_of_its_endpoint(tmp_path: Path) -> None:
    request = tool_request("hello.js", _source(tmp_path, ENDPOINT="/hello"))
    assert request == ToolRequest("GET", f"{BASE}/hello")
    argv, env = tool_argv("wrk", request, WRK, 4, LOADTESTS)
    assert argv == ["wrk", "-t4", "-c100", "-d3s", "--latency", f"{BASE}/hello"]
    assert env == {}


def test_uploads_send_the_payload_as_upload_js_does(tmp_path: Path) -> None:
    payload = generate_payload(262144)
    raw = tool_request("upload.js", _source(tmp_path, ENDPOINT="/files", MODE="raw"))
    assert raw.method == "POST" and raw.content_type == "application/octet-stream"
    assert raw.body_file is not None and raw.body_file.read_bytes() == payload
    multipart = tool_request("upload.js", _source(tmp_path, ENDPOINT="/files/upload/single"))
    assert multipart.content_type == MULTIPART_CONTENT_TYPE
    assert multipart.body_file is not None
    body = multipart.body_file.read_bytes()
    assert body.startswith(b"--servelab0123456789\r\nContent-Disposition: form-data; name=")
    assert payload in body
    base64 = tool_request(
        "upload.js", _source(tmp_path, ENDPOINT="/files/upload/raw/json/base64decode")
    )
    assert base64.body_file is not None
    assert json.loads(base64.body_file.read_bytes())["filename"] == "health.jpg"


def test_wrk_sends_a_body_through_the_lua_script(tmp_path: Path) -> None:
    request = tool_request(
        "upload.js",
        _source(tmp_path, ENDPOINT="/ingest/{unique}", METHOD="PUT", MODE="raw"),
    )
    argv, env = tool_argv("wrk", request, WRK, 1, LOADTESTS)
    assert argv == [
        "wrk", "-t1", "-c100", "-d3s", "--latency", "-s", "loadtests/lib/request.lua",
        f"{BASE}/ingest/unique",
    ]  # fmt: skip
    assert env == {
        "METHOD": "PUT",
        "BODY_FILE": str(tmp_path / "tool-request.body"),
        "CONTENT_TYPE": "application/octet-stream",
        "UNIQUE_PATH": "/ingest/{unique}",
    }
    with pytest.raises(ToolError, match="ab sends one URL"):
        tool_argv("ab", request, AB, 1, LOADTESTS)


def test_writes_carry_the_bearer_token_to_wrk_and_ab(tmp_path: Path) -> None:
    """docs/security.md: with API_TOKEN in the env, an upload sends Authorization, as
    lib/auth.js does for k6; without it, none."""
    token = "bench-token"  # noqa: S105  (a test token)
    request = tool_request("upload.js", _source(tmp_path, API_TOKEN=token))
    assert request.authorization == f"Bearer {token}"
    assert tool_argv("wrk", request, WRK, 1, LOADTESTS)[1]["AUTHORIZATION"] == f"Bearer {token}"
    argv, _ = tool_argv("ab", request, AB, 1, LOADTESTS)
    assert argv[argv.index("-H") + 1] == f"Authorization: Bearer {token}"
    anonymous = tool_request("upload.js", _source(tmp_path))
    assert anonymous.authorization is None
    assert "AUTHORIZATION" not in tool_argv("wrk", anonymous, WRK, 1, LOADTESTS)[1]


def test_health_code_is_the_body_ab_itself_was_given(tmp_path: Path) -> None:
    """loadtests/data/health-code.json is the write-up's `ab -p` body."""
    source = _source(tmp_path, USAGE="health-code", BODY="json")
    request = tool_request("health-code.js", source)
    assert request.body_file is not None
    written = json.loads(request.body_file.read_bytes())
    assert written == json.loads((source.loadtests / "data" / "health-code.json").read_text())
    argv, _ = tool_argv("ab", request, AB, 1, LOADTESTS)
    assert argv == [
        "ab", "-n", "200", "-c", "20", "-p", str(request.body_file), "-T", "application/json",
        f"{BASE}/analysis/health-code",
    ]  # fmt: skip
    hey = Load(vus=10, shape="hey", iterations=3, max_duration_s=60)
    assert tool_argv("ab", request, hey, 1, LOADTESTS)[0][1:5] == ["-n", "30", "-c", "10"]


def test_a_download_named_as_is_needs_no_stored_file(tmp_path: Path) -> None:
    request = tool_request(
        "download.js", _source(tmp_path, ENDPOINT="/payload/health.jpg", NO_UPLOAD="1")
    )
    assert request == ToolRequest("GET", f"{BASE}/payload/health.jpg")
    given = tool_request("download.js", _source(tmp_path, ENDPOINT="/files/{id}", FILE_ID="a b"))
    assert given.url == f"{BASE}/files/a%20b"


def test_what_a_tool_cannot_send_is_named(tmp_path: Path) -> None:
    with pytest.raises(ToolRequestError, match=r"wait\.js: wrk and ab can send"):
        tool_request("wait.js", _source(tmp_path))
    with pytest.raises(ToolRequestError, match=re.escape("POST http://127.0.0.1:9/files failed")):
        tool_request("download.js", _source(tmp_path, ENDPOINT="/files/{id}"))
    with pytest.raises(ToolError, match="wrk needs a timed shape"):
        tool_argv("wrk", ToolRequest("GET", BASE), AB, 1, LOADTESTS)
    with pytest.raises(ToolError, match="ab needs a counted shape"):
        tool_argv("ab", ToolRequest("GET", BASE), WRK, 1, LOADTESTS)


def test_cpu_per_request_of_a_tool_run() -> None:
    result = ToolResult("wrk", ["wrk"], requests=2000, rps=1000.0, p50_ms=1.0, p99_ms=5.0,
                        errors=0, server_cpu_s=0.5)  # fmt: skip
    assert result.cpu_us_per_request == pytest.approx(250.0)
    assert ToolResult("ab", ["ab"], 0, 0.0, None, None, 0, 0.5).cpu_us_per_request is None
