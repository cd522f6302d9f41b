"""The entry editor's uWSGI recipe hands its socket to nginx once a worker can answer:
the master binds starting.sock, and whichever worker loads the app first renames it to the
entryeditor.sock nginx connects to. The healthcheck asks any worker, so the moment one
answers, nginx's socket must be there. The recipe's own socket and hook lines run here around
an app whose first worker loads slowly, as one does on a busy machine."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2
import pytest

from servelab.stack.ports import LOOPBACK, free_port

pytestmark = pytest.mark.stack

# Worker 1 loads the app 3 s after worker 2 does.
SLOW_FIRST_WORKER = """
import time

import uwsgi

if uwsgi.worker_id() == 1:
    time.sleep(3)


def application(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain")])
    return [str(uwsgi.worker_id()).encode()]
"""


def handoff_lines(project_root: Path) -> list[str]:
    """The recipe's lines that bind the socket and hand it over."""
    ini = (project_root / "deploy/uwsgi/entryeditor.ini").read_text().splitlines()
    lines = [line for line in ini if line.startswith(("socket =", "hook-"))]
    assert any(line.startswith("hook-") for line in lines), lines
    return lines


def first_answer(url: str, within_s: float) -> str:
    """The body of the first answer at `url` (the worker's id)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            return httpx2.get(url, timeout=1).text
        except httpx2.TransportError:
            time.sleep(0.02)
    raise AssertionError(f"nothing answered at {url} within {within_s:g} s")


def test_the_first_worker_to_answer_has_handed_nginx_its_socket(
    project_root: Path, tmp_path: Path
) -> None:
    (tmp_path / "slow_first.py").write_text(SLOW_FIRST_WORKER)
    port = free_port()
    # A unix socket's path must stay under 108 bytes: the sockets go in a short directory.
    sockets = Path(tempfile.mkdtemp(prefix="uwsgi-", dir="/tmp"))
    ini = tmp_path / "handoff.ini"
    ini.write_text(
        "\n".join(
            [
                "[uwsgi]",
                "strict = true",
                "master = true",
                "module = slow_first:application",
                "processes = 2",
                "lazy-apps = true",
                "vacuum = true",
                f"http-socket = {LOOPBACK}:{port}",
                *handoff_lines(project_root),
            ]
        )
        + "\n"
    )
    uwsgi = Path(sys.executable).with_name("uwsgi")
    with (tmp_path / "uwsgi.log").open("w") as log:
        server = subprocess.Popen(
            [str(uwsgi), "--ini", str(ini)],
            cwd=tmp_path,
            env={**os.environ, "SOCKET_DIR": str(sockets)},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        worker = first_answer(f"http://{LOOPBACK}:{port}/", within_s=30)
        handed = (sockets / "entryeditor.sock").is_socket()
        assert (worker, handed) == ("2", True), (tmp_path / "uwsgi.log").read_text()[-2000:]
        # The slow worker finds the socket handed over and serves beside the other.
        time.sleep(3.5)
        assert server.poll() is None
        assert not (sockets / "starting.sock").exists()
    finally:
        os.killpg(server.pid, signal.SIGINT)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        for leftover in sockets.iterdir():
            leftover.unlink()
        sockets.rmdir()
