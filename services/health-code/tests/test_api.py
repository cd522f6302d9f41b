"""POST /analysis/{usage} through a real uvicorn: every body it takes, every usage, and a
clear JSON 4xx for each kind of bad input."""

from __future__ import annotations

import io
import json
import socket
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx2
import pytest
from PIL import Image

from health_code_service.usages import Usage
from servelab.testing import serve_service

Post = Callable[..., httpx2.Response]
SampleOf = Callable[..., Any]
Body = Callable[[str, bytes], tuple[bytes, str]]

MAX_BODY_BYTES = 256 * 1024
MAX_PIXELS = 4_000_000


@pytest.fixture(scope="module")
def url(starts_servers: None) -> Iterator[str]:
    env = {
        "ANALYZE_MODE": "threadpool",
        "MAX_BODY_BYTES": str(MAX_BODY_BYTES),
        "MAX_PIXELS": str(MAX_PIXELS),
    }
    with serve_service("uvicorn", "health-code-uvicorn", env) as stack:
        yield stack.url("health-code-uvicorn")


def error_of(response: httpx2.Response, status: int) -> str:
    """The error code of a JSON error answer with `status`."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert set(error) >= {"code", "message"}
    assert error["message"]
    code: str = error["code"]
    return code


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize("usage", list(Usage))
@pytest.mark.parametrize("kind", ["json", "raw", "multipart"])
def test_each_usage_is_read_from_each_kind_of_body(
    url: str, post: Post, sample: SampleOf, usage: Usage, kind: str
) -> None:
    screenshot = sample(usage)
    response = post(url, usage, screenshot.jpeg, kind)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    assert response.json() == screenshot.answer


def test_healthz_and_readyz_name_the_mode_and_engine(url: str) -> None:
    engine = {"mode": "threadpool", "engine": "onnxruntime", "device": "cpu"}
    assert httpx2.get(f"{url}/healthz").json() == {"status": "ok", **engine}
    ready = httpx2.get(f"{url}/readyz")
    assert ready.status_code == 200
    assert ready.json() == {"status": "ready", **engine}


def test_the_openapi_document_lists_every_body(url: str) -> None:
    operation = httpx2.get(f"{url}/openapi.json").json()["paths"]["/analysis/{usage}"]["post"]
    assert set(operation["requestBody"]["content"]) == {
        "application/json",
        "image/jpeg",
        "image/png",
        "application/octet-stream",
        "multipart/form-data",
    }


def test_an_unknown_usage_is_a_404_naming_the_known_ones(
    url: str, post: Post, sample: SampleOf
) -> None:
    response = post(url, "passport", sample(Usage.HEALTH_CODE).jpeg)
    assert error_of(response, 404) == "unknown_usage"
    assert "health-code, trip-code, nucleic-acid" in response.json()["error"]["message"]


def test_unknown_paths_and_methods_answer_json(url: str) -> None:
    assert error_of(httpx2.get(f"{url}/nope"), 404) == "not_found"
    assert error_of(httpx2.get(f"{url}/analysis/health-code"), 405) == "method_not_allowed"


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b'{"base64": "not base64!"}', "bad_base64"),
        (b'{"base64": "QUJD"', "invalid_json"),
        (b'{"image": "QUJD"}', "invalid_body"),
        (b'["QUJD"]', "invalid_body"),
        (b'{"base64": 12}', "invalid_body"),
    ],
)
def test_a_bad_json_body_is_a_400(url: str, post: Post, content: bytes, code: str) -> None:
    response = httpx2.post(
        f"{url}/analysis/health-code",
        content=content,
        headers={"content-type": "application/json"},
    )
    assert error_of(response, 400) == code


def test_a_body_of_another_type_is_a_415(url: str, post: Post) -> None:
    response = httpx2.post(
        f"{url}/analysis/health-code", content=b"hello", headers={"content-type": "text/plain"}
    )
    assert error_of(response, 415) == "unsupported_media_type"
    assert error_of(httpx2.post(f"{url}/analysis/health-code"), 415) == "unsupported_media_type"
    # A body near the limit is read before it is refused: the client gets the answer, not
    # a connection reset while it still sends.
    large = httpx2.post(
        f"{url}/analysis/health-code",
        content=bytes(MAX_BODY_BYTES - 1024),
        headers={"content-type": "text/plain", "connection": "close"},
    )
    assert error_of(large, 415) == "unsupported_media_type"


@pytest.mark.parametrize("kind", ["json", "raw", "multipart"])
def test_bytes_that_are_no_image_are_refused_in_every_body(url: str, post: Post, kind: str) -> None:
    assert error_of(post(url, "health-code", b"%PDF-1.7 not an image", kind), 415) == (
        "not_an_image"
    )


def test_an_empty_body_is_not_an_image(url: str, post: Post) -> None:
    assert error_of(post(url, "health-code", b""), 415) == "not_an_image"


def test_a_truncated_image_is_a_422(url: str, post: Post, sample: SampleOf) -> None:
    jpeg = sample(Usage.HEALTH_CODE).jpeg
    assert error_of(post(url, "health-code", jpeg[: len(jpeg) // 2]), 422) == "truncated_image"


def test_an_image_over_the_pixel_limit_is_refused_before_decoding(url: str, post: Post) -> None:
    bomb = png(2500, 2000)
    assert len(bomb) < MAX_BODY_BYTES
    assert error_of(post(url, "health-code", bomb), 413) == "too_many_pixels"


@pytest.mark.parametrize("usage", list(Usage))
@pytest.mark.parametrize("size", [(1, MAX_PIXELS - 1), (MAX_PIXELS - 1, 1)], ids=["tall", "wide"])
def test_a_long_thin_image_is_refused_before_decoding_on_every_usage(
    url: str, post: Post, grey_png: Callable[[int, int], bytes], usage: Usage, size: tuple[int, int]
) -> None:
    """Within the area limit, and a few KB: refused for its side before a pixel is decoded."""
    response = post(url, usage, grey_png(*size), "raw")
    assert error_of(response, 413) == "image_side_too_long"


@pytest.mark.parametrize(
    ("usage", "image"),
    [("health-code", "a trip code"), ("trip-code", "blank"), ("nucleic-acid", "blank")],
)
def test_an_image_without_a_code_is_a_422_of_its_own(
    url: str, post: Post, sample: SampleOf, usage: str, image: str
) -> None:
    jpeg = sample(Usage.TRIP_CODE).jpeg if image == "a trip code" else png(540, 1000)
    assert error_of(post(url, usage, jpeg), 422) == "no_code_found"


@pytest.mark.parametrize(
    ("content", "code", "status"),
    [
        (
            b'--testboundary42\r\nContent-Disposition: form-data; name="other"\r\n\r\nx\r\n'
            b"--testboundary42--\r\n",
            "missing_file",
            422,
        ),
        (
            b'--testboundary42\r\nContent-Disposition: form-data; name="file"\r\n\r\nxx',
            "malformed_multipart",
            400,
        ),
    ],
    ids=["no-file-field", "no-closing-boundary"],
)
def test_a_bad_multipart_body_is_refused(
    url: str, post: Post, content: bytes, code: str, status: int
) -> None:
    response = httpx2.post(
        f"{url}/analysis/health-code",
        content=content,
        headers={"content-type": "multipart/form-data; boundary=testboundary42"},
    )
    assert error_of(response, status) == code


def _raw_request(url: str, head: dict[str, str]) -> tuple[int, dict[str, object]]:
    """Send only the request's head and read the answer: no byte of the body is sent."""
    parts = urlsplit(url)
    lines = ["POST /analysis/health-code HTTP/1.1", "Host: test", "Connection: close"]
    lines += [f"{key}: {value}" for key, value in head.items()]
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status_line, _, rest = data.partition(b"\r\n")
    return int(status_line.split()[1]), json.loads(rest.partition(b"\r\n\r\n")[2])


@pytest.mark.parametrize("content_type", ["application/json", "image/jpeg", "multipart/form-data"])
def test_a_declared_body_over_the_limit_is_a_413_before_it_is_sent(
    url: str, content_type: str
) -> None:
    head = {"Content-Type": content_type, "Content-Length": str(MAX_BODY_BYTES + 1)}
    status, answer = _raw_request(url, head)
    assert status == 413
    assert answer["error"]["code"] == "payload_too_large"  # type: ignore[index]


@pytest.mark.parametrize("kind", ["json", "raw", "multipart"])
def test_a_chunked_body_over_the_limit_is_cut_off_with_a_413(
    url: str, post: Post, body: Body, kind: str
) -> None:
    content, content_type = body(kind, b"\xff\xd8" + bytes(MAX_BODY_BYTES + 100_000))

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(content), 65536):
            yield content[start : start + 65536]

    response = httpx2.post(
        f"{url}/analysis/health-code",
        content=chunks(),
        headers={"content-type": content_type},
        timeout=30,
    )
    assert "content-length" not in response.request.headers
    assert error_of(response, 413) == "payload_too_large"


def test_a_body_just_under_the_limit_is_read(url: str, post: Post, body: Body) -> None:
    padded = png(540, 1000)
    content, content_type = body("json", padded)
    assert len(content) < MAX_BODY_BYTES
    assert error_of(post(url, "health-code", padded, "json"), 422) == "no_code_found"
    assert content_type == "application/json"
