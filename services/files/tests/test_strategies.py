"""The write-up's thirteen endpoints: exact bytes in and out under uvicorn and gunicorn."""

from __future__ import annotations

import base64
import hashlib
import os

import httpx2
import pytest

RAW_UPLOADS = [
    "/files/upload/stream/async_read_and_memory_write",
    "/files/upload/stream/async_read_and_disk_write",
    "/files/upload/stream/async_read_and_async_write",
]
MULTIPART_UPLOADS = [
    "/files/upload/single",
    "/files/upload/single/sync",
    "/files/upload/single/stream",
    "/files/upload/single/stream/async_read_sync_write",
    "/files/upload/single/stream/sync_read_sync_write",
]
BASE64_UPLOAD = "/files/upload/raw/json/base64decode"
DOWNLOADS = [
    "/files/download/stream/sync_read",
    "/files/download/stream/async_read",
    "/files/download/file",
    "/files/download/file/sync",
]
# Bigger than CHUNK_SIZE (256 KiB) and not a multiple of it, so chunk loops run more than once.
PAYLOAD = os.urandom(600_000 + 123)


def receipt(data: bytes) -> dict[str, object]:
    return {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def assert_error(response: httpx2.Response, status: int, code: str | None = None) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    error = response.json()["error"]
    assert error["message"]
    if code is not None:
        assert error["code"] == code


@pytest.mark.parametrize("path", RAW_UPLOADS)
def test_raw_upload_receives_exact_bytes(server, client, path):
    response = client.post(path, content=PAYLOAD)
    assert response.status_code == 200, response.text
    assert response.json() == receipt(PAYLOAD)
    assert server.temp_files() == []


@pytest.mark.parametrize("path", RAW_UPLOADS)
def test_raw_upload_takes_a_multipart_blob_as_is(client, path):
    """The write-up posted a multipart body to these and stored it raw."""
    files = {"file": ("health.jpg", PAYLOAD, "image/jpeg")}
    request = client.build_request("POST", path, files=files)
    body = request.read()
    response = client.send(request)
    assert response.json() == receipt(body)


@pytest.mark.parametrize("path", MULTIPART_UPLOADS)
def test_multipart_upload_receives_exact_bytes(server, client, path):
    response = client.post(path, files={"file": ("health.jpg", PAYLOAD, "image/jpeg")})
    assert response.status_code == 200, response.text
    assert response.json() == receipt(PAYLOAD)
    assert server.temp_files() == []


@pytest.mark.parametrize("path", MULTIPART_UPLOADS)
def test_multipart_upload_refuses_other_content_types(client, path):
    assert_error(client.post(path, content=PAYLOAD), 415)
    assert_error(client.post(path, json={"base64": ""}), 415)
    assert_error(client.post(path, data={"file": "not a file part"}), 415)


@pytest.mark.parametrize("path", MULTIPART_UPLOADS)
def test_multipart_upload_needs_a_file_field(client, path):
    response = client.post(path, files={"other": ("x.bin", b"abc")})
    assert response.status_code in (400, 422)
    assert_error(response, response.status_code)


@pytest.mark.parametrize("path", MULTIPART_UPLOADS)
def test_multipart_upload_refuses_malformed_bodies(client, path):
    no_boundary = {"content-type": "multipart/form-data"}
    assert_error(client.post(path, content=b"garbage", headers=no_boundary), 400)
    garbage = {"content-type": "multipart/form-data; boundary=xyz"}
    response = client.post(path, content=b"not multipart at all", headers=garbage)
    assert response.status_code in (400, 422)
    assert_error(response, response.status_code)


def test_base64_upload_receives_exact_bytes(server, client):
    document = {"base64": base64.b64encode(PAYLOAD).decode(), "filename": "health.jpg"}
    response = client.post(BASE64_UPLOAD, json=document)
    assert response.status_code == 200, response.text
    assert response.json() == receipt(PAYLOAD)
    assert server.temp_files() == []


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b'{"base64": "aGVsbG8"}', "bad_base64"),  # missing padding
        (b'{"base64": "aGVs bG8="}', "bad_base64"),  # whitespace inside
        (b'{"base64": "aGVsbG8=!"}', "bad_base64"),
        ('{"base64": "h\u00e9llo"}'.encode(), "bad_base64"),
        (b'{"base64": ', "bad_json"),
        (b"\xff\xfe", "bad_json"),
        (b'["aGVsbG8="]', "bad_json"),
        (b'{"base64": 12}', "bad_json"),
        (b'{"base64": "aGVsbG8=", "filename": 3}', "bad_json"),
    ],
)
def test_base64_upload_refuses_bad_documents(client, body, code):
    response = client.post(
        BASE64_UPLOAD, content=body, headers={"content-type": "application/json"}
    )
    assert_error(response, 400, code)


def test_base64_upload_needs_json(client):
    document = base64.b64encode(PAYLOAD)
    assert_error(client.post(BASE64_UPLOAD, content=document), 415)
    assert_error(client.post(BASE64_UPLOAD, files={"file": ("x", document)}), 415)


@pytest.fixture(scope="module")
def stored(server):
    with server.client() as client:
        response = client.post("/files", content=PAYLOAD, headers={"content-type": "image/jpeg"})
    assert response.status_code == 201, response.text
    return response.json()["id"]


@pytest.mark.parametrize("path", DOWNLOADS)
def test_download_sends_exact_bytes(client, stored, path):
    response = client.get(path, params={"id": stored})
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/jpeg"
    assert int(response.headers["content-length"]) == len(PAYLOAD)
    assert hashlib.sha256(response.content).hexdigest() == hashlib.sha256(PAYLOAD).hexdigest()


@pytest.mark.parametrize("path", DOWNLOADS)
@pytest.mark.parametrize("object_id", ["0" * 32, "../objects/x", "..%2F..%2Fetc%2Fpasswd", ""])
def test_download_of_an_unknown_id_is_404(client, path, object_id):
    assert_error(client.get(path, params={"id": object_id}), 404, "not_found")


@pytest.mark.parametrize("path", DOWNLOADS)
def test_download_needs_an_id(client, path):
    response = client.get(path)
    assert response.status_code in (400, 422)
    assert_error(response, response.status_code)
