"""The production API: store, list, download with ranges and validators, delete."""

from __future__ import annotations

import base64
import hashlib
import os
import re
from concurrent.futures import ThreadPoolExecutor
from email.utils import formatdate, parsedate_to_datetime

import httpx2
import pytest

from servelab.reliability.fuzz.raw import head_then_get

PAYLOAD = os.urandom(300_000 + 7)
SHA256 = hashlib.sha256(PAYLOAD).hexdigest()


def assert_error(response: httpx2.Response, status: int, code: str | None = None) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    if code is not None:
        assert response.json()["error"]["code"] == code


def upload(client: httpx2.Client, data: bytes = PAYLOAD, **kwargs) -> dict:
    response = client.post("/files", content=data, **kwargs)
    assert response.status_code == 201, response.text
    return response.json()


def test_raw_upload_round_trip(server, client):
    response = client.post(
        "/files",
        content=PAYLOAD,
        params={"filename": "report 2024.pdf"},
        headers={"content-type": "application/pdf"},
    )
    assert response.status_code == 201, response.text
    meta = response.json()
    assert re.fullmatch("[0-9a-f]{32}", meta["id"])
    assert meta["size"] == len(PAYLOAD)
    assert meta["sha256"] == SHA256
    assert meta["filename"] == "report 2024.pdf"
    assert meta["content_type"] == "application/pdf"
    assert meta["created_at"]
    assert response.headers["location"] == f"/files/{meta['id']}"

    download = client.get(response.headers["location"])
    assert download.status_code == 200
    assert download.content == PAYLOAD
    assert download.headers["content-type"] == "application/pdf"
    assert download.headers["etag"] == f'"{SHA256}"'
    assert download.headers["content-disposition"] == (
        "attachment; filename=\"report 2024.pdf\"; filename*=UTF-8''report%202024.pdf"
    )
    assert download.headers["accept-ranges"] == "bytes"
    assert server.temp_files() == []


def test_multipart_upload_round_trip(client):
    files = {"file": ("café ünïcode.png", PAYLOAD, "image/png")}
    response = client.post("/files", files=files, data={"note": "ignored"})
    assert response.status_code == 201, response.text
    meta = response.json()
    assert (meta["size"], meta["sha256"]) == (len(PAYLOAD), SHA256)
    assert (meta["filename"], meta["content_type"]) == ("café ünïcode.png", "image/png")

    download = client.get(f"/files/{meta['id']}")
    assert download.content == PAYLOAD
    assert download.headers["content-disposition"] == (
        'attachment; filename="caf_ _n_code.png"; '
        "filename*=UTF-8''caf%C3%A9%20%C3%BCn%C3%AFcode.png"
    )


def test_filename_from_header_is_reduced_to_a_display_name(client):
    meta = upload(client, headers={"x-filename": "..%2F..%2Fetc%2Fpass%0Awd"})
    assert meta["filename"] == "passwd"
    assert meta["content_type"] == "application/octet-stream"
    meta = upload(client, params={"filename": "C:\\Users\\me\\notes.txt"})
    assert meta["filename"] == "notes.txt"
    meta = upload(client, params={"filename": ".."})
    assert meta["filename"] == meta["id"]


def test_uploads_are_refused_with_a_malformed_multipart_body(server, client):
    before = server.object_files()
    cases = [
        ("multipart/form-data", b"--x\r\n"),  # no boundary parameter
        ("multipart/form-data; boundary=xyz", b"garbage"),
        # truncated before the closing boundary
        (
            "multipart/form-data; boundary=xyz",
            b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nhello',
        ),
    ]
    for content_type, body in cases:
        response = client.post("/files", content=body, headers={"content-type": content_type})
        assert_error(response, 400)
    missing = client.post("/files", files={"other": ("a.bin", b"abc")})
    assert_error(missing, 422, "missing_file")
    twice = client.post("/files", files=[("file", ("a", b"1")), ("file", ("b", b"2"))])
    assert_error(twice, 400)
    server.wait_until_clean(before)


def test_fifty_concurrent_uploads_are_stored_intact(server):
    payloads = [os.urandom(50_000 + i) for i in range(50)]

    def send(data: bytes) -> dict:
        with server.client() as client:
            return upload(client, data)

    with ThreadPoolExecutor(max_workers=50) as pool:
        metas = list(pool.map(send, payloads))
    assert len({meta["id"] for meta in metas}) == 50
    with server.client() as client:
        for data, meta in zip(payloads, metas, strict=True):
            assert meta["sha256"] == hashlib.sha256(data).hexdigest()
            assert client.get(f"/files/{meta['id']}").content == data
    assert server.temp_files() == []


def test_checksum_headers_are_verified(server, client):
    digest = hashlib.sha256(PAYLOAD)
    content_digest = f"sha-256=:{base64.b64encode(digest.digest()).decode()}:"
    assert upload(client, headers={"x-checksum-sha256": digest.hexdigest().upper()})
    assert upload(client, headers={"content-digest": f"sha-512=:AAAA:, {content_digest}"})

    before = server.object_files()
    wrong = hashlib.sha256(b"something else")
    for headers in (
        {"x-checksum-sha256": wrong.hexdigest()},
        {"content-digest": f"sha-256=:{base64.b64encode(wrong.digest()).decode()}:"},
    ):
        assert_error(
            client.post("/files", content=PAYLOAD, headers=headers), 400, "checksum_mismatch"
        )
    for headers in ({"x-checksum-sha256": "abc"}, {"content-digest": "sha-256=:not base64:"}):
        assert_error(client.post("/files", content=PAYLOAD, headers=headers), 400, "bad_checksum")
    server.wait_until_clean(before)


def test_content_digest_of_a_multipart_upload_covers_the_body_as_sent(client):
    request = client.build_request("POST", "/files", files={"file": ("a.bin", PAYLOAD)})
    body = request.read()
    body_digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
    request.headers["content-digest"] = f"sha-256=:{body_digest}:"
    request.headers["x-checksum-sha256"] = SHA256
    response = client.send(request)
    assert response.status_code == 201, response.text


@pytest.fixture(scope="module")
def stored(server):
    with server.client() as client:
        return upload(client, headers={"content-type": "text/plain"})


def test_range_requests(client, stored):
    url = f"/files/{stored['id']}"
    partial = client.get(url, headers={"range": "bytes=10-19"})
    assert partial.status_code == 206
    assert partial.content == PAYLOAD[10:20]
    assert partial.headers["content-range"] == f"bytes 10-19/{len(PAYLOAD)}"
    suffix = client.get(url, headers={"range": "bytes=-5"})
    assert (suffix.status_code, suffix.content) == (206, PAYLOAD[-5:])

    outside = client.get(url, headers={"range": f"bytes={len(PAYLOAD)}-"})
    assert_error(outside, 416, "range_not_satisfiable")
    assert outside.headers["content-range"] == f"bytes */{len(PAYLOAD)}"
    # A Range the server does not understand is ignored (RFC 9110 14.2): the whole file.
    for ignored in ("lines=1-2", "bytes=9-1", "bytes=x-"):
        whole = client.get(url, headers={"range": ignored})
        assert (whole.status_code, whole.content) == (200, PAYLOAD)

    stale = client.get(url, headers={"range": "bytes=0-9", "if-range": '"stale"'})
    assert (stale.status_code, stale.content) == (200, PAYLOAD)
    fresh = client.get(url, headers={"range": "bytes=0-9", "if-range": f'"{SHA256}"'})
    assert (fresh.status_code, fresh.content) == (206, PAYLOAD[:10])


def test_several_ranges_are_one_multipart_byteranges_answer(client, stored):
    url = f"/files/{stored['id']}"
    response = client.get(url, headers={"range": "bytes=0-9, -5"})
    assert response.status_code == 206
    media_type, _, boundary = response.headers["content-type"].partition("; boundary=")
    assert media_type == "multipart/byteranges"
    assert int(response.headers["content-length"]) == len(response.content)
    parts = response.content.split(f"--{boundary}".encode())
    assert parts[0] == b"" and parts[-1] == b"--"
    size = len(PAYLOAD)
    expected = [
        (f"bytes 0-9/{size}", PAYLOAD[:10]),
        (f"bytes {size - 5}-{size - 1}/{size}", PAYLOAD[-5:]),
    ]
    for part, (content_range, data) in zip(parts[1:-1], expected, strict=True):
        head, _, body = part.partition(b"\r\n\r\n")
        assert f"Content-Range: {content_range}".encode() in head
        assert b"Content-Type: text/plain" in head
        assert body == data + b"\r\n"
    head = client.head(url, headers={"range": "bytes=0-9"})
    assert (head.status_code, head.content) == (206, b"")
    assert head.headers["content-length"] == "10"


def test_conditional_get(client, stored):
    url = f"/files/{stored['id']}"
    first = client.get(url)
    etag, last_modified = first.headers["etag"], first.headers["last-modified"]
    assert first.headers["content-type"] == "text/plain"
    for if_none_match in (etag, f'"other", W/{etag}', "*"):
        response = client.get(url, headers={"if-none-match": if_none_match})
        assert response.status_code == 304
        assert response.content == b""
        assert response.headers["etag"] == etag
    assert client.get(url, headers={"if-none-match": '"other"'}).status_code == 200

    assert client.get(url, headers={"if-modified-since": last_modified}).status_code == 304
    earlier = formatdate(parsedate_to_datetime(last_modified).timestamp() - 60, usegmt=True)
    assert client.get(url, headers={"if-modified-since": earlier}).status_code == 200
    assert client.get(url, headers={"if-modified-since": "not a date"}).status_code == 200
    # If-None-Match wins over If-Modified-Since.
    both = {"if-none-match": '"other"', "if-modified-since": last_modified}
    assert client.get(url, headers=both).status_code == 200


def test_head(client, stored):
    response = client.head(f"/files/{stored['id']}")
    assert response.status_code == 200
    assert response.content == b""
    assert int(response.headers["content-length"]) == len(PAYLOAD)
    assert response.headers["etag"] == f'"{SHA256}"'
    assert client.head(f"/files/{'0' * 32}").status_code == 404


# A path of every GET route: the API, a download strategy of the write-up's, the probes.
GET_PATHS = ("/files", "/files/{id}", "/files/download/file?id={id}", "/healthz", "/readyz")


def test_head_answers_every_get_route_as_get_without_a_body(server, stored):
    for path in GET_PATHS:
        target = path.format(id=stored["id"])
        head, get = head_then_get(httpx2.URL(server.url).port or 80, target)
        assert get.status == 200, target
        assert head.status == get.status, target
        for name in ("content-length", "content-type"):
            assert head.headers.get(name) == get.headers.get(name), (target, name)


def test_a_405_names_head_wherever_it_names_get(client, stored):
    for method, path, allowed in (
        ("PUT", f"/files/{stored['id']}", {"DELETE", "GET", "HEAD"}),
        ("DELETE", "/files", {"GET", "HEAD", "POST"}),
        ("POST", "/healthz", {"GET", "HEAD"}),
    ):
        response = client.request(method, path)
        assert response.status_code == 405, path
        assert set(response.headers["allow"].split(", ")) == allowed, path


def test_delete(server, client):
    meta = upload(client)
    assert client.delete(f"/files/{meta['id']}").status_code == 204
    assert_error(client.get(f"/files/{meta['id']}"), 404, "not_found")
    assert_error(client.delete(f"/files/{meta['id']}"), 404, "not_found")
    assert meta["id"] not in " ".join(server.object_files())


@pytest.mark.parametrize(
    "path",
    [
        f"/files/{'0' * 32}",
        "/files/..%2F..%2Fetc%2Fpasswd",
        "/files/%2E%2E",
        f"/files/{'A' * 32}",
        "/files/objects",
        "/files/tmp",
    ],
)
def test_ids_that_are_not_ours_are_404(client, path):
    assert_error(client.get(path), 404)
    assert client.head(path).status_code == 404
    assert_error(client.delete(path), 404)


def test_pagination(server_factory):
    with server_factory("uvicorn", "files-uvicorn") as server, server.client() as client:
        ids = [upload(client, f"object {i}".encode())["id"] for i in range(7)]
        pages, after = [], None
        while True:
            params = {"limit": 3} | ({"after": after} if after else {})
            page = client.get("/files", params=params).json()
            pages.append([item["id"] for item in page["items"]])
            after = page["next"]
            if after is None:
                break
        assert pages == [ids[0:3], ids[3:6], ids[6:7]]
        first = client.get("/files").json()["items"][0]
        assert (first["id"], first["size"], first["filename"]) == (ids[0], 8, ids[0])

        client.delete(f"/files/{ids[1]}")
        assert [
            item["id"] for item in client.get("/files", params={"limit": 2}).json()["items"]
        ] == [
            ids[0],
            ids[2],
        ]
        for params in ({"limit": 0}, {"limit": "x"}, {"after": "../x"}):
            response = client.get("/files", params=params)
            assert_error(response, 422, "validation_error")
        assert len(client.get("/files", params={"limit": 10**6}).json()["items"]) == 6


def test_accel_redirect(server_factory):
    with server_factory("nginx", "files-app") as server, server.client() as client:
        meta = upload(client, headers={"content-type": "image/png"}, params={"filename": "a.png"})
        response = client.get(f"/files/{meta['id']}")
        assert response.status_code == 200
        assert response.content == b""
        assert response.headers["x-accel-redirect"] == f"/_protected/objects/{meta['id']}"
        assert (server.data_dir / "objects" / meta["id"]).read_bytes() == PAYLOAD
        assert response.headers["content-type"] == "image/png"
        assert response.headers["content-disposition"].startswith('attachment; filename="a.png"')
        not_modified = client.get(f"/files/{meta['id']}", headers={"if-none-match": f'"{SHA256}"'})
        assert not_modified.status_code == 304
        assert "x-accel-redirect" not in not_modified.headers


@pytest.mark.parametrize("size", [0, 1, 256 * 1024, 256 * 1024 + 1])
def test_downloads_of_every_size_around_one_chunk_are_exact(client, size):
    data = os.urandom(size)
    meta = upload(client, data, params={"filename": "small.bin"})
    response = client.get(f"/files/{meta['id']}")
    assert response.status_code == 200
    assert response.content == data
    assert response.headers["content-length"] == str(size)
    assert response.headers["etag"] == f'"{hashlib.sha256(data).hexdigest()}"'
    assert response.headers["content-disposition"].startswith('attachment; filename="small.bin"')
    assert client.head(f"/files/{meta['id']}").headers["content-length"] == str(size)


LARGE = os.urandom(1_000_000)  # over one chunk: streamed from the file, not read whole


def test_an_object_deleted_mid_download_is_sent_whole(client):
    """The answer has started (headers read) when the DELETE lands: every byte still comes."""
    meta = upload(client, LARGE)
    with client.stream("GET", f"/files/{meta['id']}") as download:
        assert download.status_code == 200
        assert client.delete(f"/files/{meta['id']}").status_code == 204
        assert download.read() == LARGE


@pytest.mark.parametrize("headers", [{}, {"Range": "bytes=0-"}], ids=["whole", "range"])
def test_downloads_racing_a_delete_get_every_byte_or_a_404(server, client, headers):
    """Downloads and a DELETE fired together: each download is whole or a clean 404, never
    a 200 or 206 cut short."""
    for _ in range(10):
        meta = upload(client, LARGE)
        path = f"/files/{meta['id']}"
        with ThreadPoolExecutor(5) as pool:
            downloads = [pool.submit(client.get, path, headers=headers) for _ in range(4)]
            deleted = pool.submit(client.delete, path)
            answers = [download.result() for download in downloads]
        assert deleted.result().status_code == 204
        for answer in answers:
            if answer.status_code == 404:
                assert_error(answer, 404, "not_found")
            else:
                assert answer.status_code in (200, 206)
                assert answer.content == LARGE
