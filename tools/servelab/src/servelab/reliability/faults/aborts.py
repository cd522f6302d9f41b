"""`servelab probe aborts`: clients that hang up mid-upload (raw and multipart bodies of
several sizes) and mid-download, against the files service's app server alone and behind
nginx.

Each abort is a raw socket that sends the request line, headers and part of the body (or
reads part of a download) and closes. Goal: 0 partial or temporary files left, the server
still serving every request after them, and no file descriptors leaked (the servers'
process groups hold as many as before, within FD_SLACK).
"""

from __future__ import annotations

import os
import socket
import struct
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from servelab.bench.load.tool_requests import MULTIPART_CONTENT_TYPE
from servelab.bench.load.tool_requests import multipart as encode_multipart
from servelab.project import Project
from servelab.reliability.faults.files_stack import Store, files_stack
from servelab.reliability.rows import Row, Verdict
from servelab.reliability.soak.sampling import descriptors, pids
from servelab.spec.reliability import Served, StoreFaults
from servelab.stack.ports import LOOPBACK

SIZES = (64 * 1024, 1024 * 1024, 8 * 1024 * 1024)
REPEAT = 3
DOWNLOAD_BYTES = 8 * 1024 * 1024
# Descriptors a server may open or close on its own between two counts (a log file, a
# keep-alive connection of the probe's own client).
FD_SLACK = 2
SETTLE_S = 5.0
MIN_WAIT_S = 0.5
# SO_LINGER on, 0 s: close() resets the connection.
_RESET = struct.pack("ii", 1, 0)


def abort_upload(port: int, token: str, size: int, multipart: bool) -> None:
    """Send the head and half the body of an upload of `size` bytes, then reset the
    connection."""
    data = os.urandom(size)
    body, kind = (
        (encode_multipart(data), MULTIPART_CONTENT_TYPE)
        if multipart
        else (data, "application/octet-stream")
    )
    head = (
        f"POST /files HTTP/1.1\r\nHost: {LOOPBACK}:{port}\r\nAuthorization: Bearer {token}\r\n"
        f"Content-Type: {kind}\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    with socket.create_connection((LOOPBACK, port), timeout=10) as sock:
        sock.sendall(head + body[: len(body) // 2])
        time.sleep(0.05)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)


def abort_download(port: int, object_id: str) -> None:
    """Read the first 64 KiB of a download, then reset the connection."""
    with socket.create_connection((LOOPBACK, port), timeout=10) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        sock.sendall(f"GET /files/{object_id} HTTP/1.1\r\nHost: {LOOPBACK}:{port}\r\n\r\n".encode())
        received = 0
        while received < 65536 and (chunk := sock.recv(65536)):
            received += len(chunk)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)


def _settled(data: Path, objects: int) -> Store:
    """The store once every aborted upload has been cleaned up (or SETTLE_S passed); it
    waits MIN_WAIT_S first, so that an upload the server has not begun counts too."""
    time.sleep(MIN_WAIT_S)
    deadline = time.monotonic() + SETTLE_S
    while True:
        store = Store.of(data)
        if (not store.leftovers and store.objects == objects) or time.monotonic() > deadline:
            return store
        time.sleep(0.1)


def probe_variant(project: Project, target: StoreFaults, variant: Served) -> list[Row]:
    work = project.work("probe", "aborts", target.family, variant.variant)
    where = f"{target.family} {variant.variant}"
    probes = []
    with files_stack(project, target, variant, work) as (stack, data, client):
        port = stack.port(variant.service)
        object_id = client.post("/files", content=os.urandom(DOWNLOAD_BYTES)).json()["id"]
        client.get("/files").raise_for_status()
        fds_before = len(descriptors(pids(stack, variant.watched)))
        # What each abort is called, and the abort.
        cases: dict[str, Callable[[], None]] = {
            f"{'multipart' if multi else 'raw'} upload of {size // 1024} KiB cut halfway": (
                partial(abort_upload, port, stack.api_token, size, multi)
            )
            for multi in (False, True)
            for size in SIZES
        }
        cases[f"download of {DOWNLOAD_BYTES // 1024} KiB cut after 64 KiB"] = partial(
            abort_download, port, object_id
        )
        for label, abort in cases.items():
            started = time.monotonic()
            for _ in range(REPEAT):
                abort()
            store = _settled(data, objects=1)
            settle_s = time.monotonic() - started
            after = client.get(f"/files/{object_id}")
            serving = after.status_code == 200 and len(after.content) == DOWNLOAD_BYTES
            fds = len(descriptors(pids(stack, variant.watched)))
            passed = not store.leftovers and store.objects == 1 and serving
            observed = (
                f"{len(store.leftovers)} files left, {store.objects} object(s) stored; next "
                f"download {after.status_code}; server fds {fds_before} before, {fds} after"
            )
            figures = {
                "leftover_files": len(store.leftovers),
                "objects": store.objects,
                "next_status": after.status_code,
                "fds": fds,
                "settle_s": round(settle_s, 2),
            }
            expected = "0 partial or temp files; the next request served"
            verdict = Verdict.PASS if passed else Verdict.FAIL
            probes.append(Row(f"{REPEAT} x {label}", where, expected, observed, verdict, figures))
        client.close()
        time.sleep(1.0)
        fds_after = len(descriptors(pids(stack, variant.watched)))
    leaked = fds_after - fds_before
    probes.append(
        Row(
            probe=f"file descriptors over {REPEAT * len(cases)} aborts",
            target=f"{where} ({', '.join(variant.watched)})",
            expected=f"no growth (within {FD_SLACK})",
            observed=f"{fds_before} open before the aborts, {fds_after} after",
            verdict=Verdict.PASS if leaked <= FD_SLACK else Verdict.FAIL,
            figures={"fds_before": fds_before, "fds_after": fds_after, "fds_growth": leaked},
        )
    )
    return probes
