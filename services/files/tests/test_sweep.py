"""A worker starting on a store sweeps what crashed processes left in tmp/: an upload whose
writer died goes at once, an upload another process is still writing stays and is
published when it completes, anything else in tmp/ goes only once it is an hour old."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from files_service.store.storage import STALE_AFTER_SECONDS, ObjectStore

# A process that starts an upload into the store at argv[1], says so, then waits for a line:
# "commit" publishes the upload and prints its id; a SIGKILL leaves it as a crash does.
WRITER = """
import sys
from pathlib import Path
from files_service.store.storage import ObjectStore

store = ObjectStore(Path(sys.argv[1]), chunk_size=4096, fsync=False)
with store.upload() as upload:
    upload.write(b"half of it")
    print(upload.path.name, flush=True)
    if sys.stdin.readline().strip() == "commit":
        meta = store.commit(upload, filename="a.bin", content_type="text/plain")
        print(meta.id, flush=True)
"""


def _writer(root: Path) -> tuple[subprocess.Popen[str], Path]:
    process = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    part = root / "tmp" / process.stdout.readline().strip()
    assert part.is_file()
    return process, part


def _store(root: Path) -> ObjectStore:
    store = ObjectStore(root, chunk_size=4096, fsync=False)
    store.prepare()
    return store


def test_an_upload_whose_process_was_killed_is_swept_at_the_next_start(tmp_path: Path) -> None:
    _store(tmp_path)
    process, part = _writer(tmp_path)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    assert part.is_file()
    store = _store(tmp_path)
    assert not part.exists()
    assert store.list(after=None, limit=10) == ([], None)


def test_an_upload_in_flight_in_another_process_stays_and_is_published(tmp_path: Path) -> None:
    _store(tmp_path)
    process, part = _writer(tmp_path)
    store = _store(tmp_path)
    assert part.is_file()
    answer, _ = process.communicate("commit\n", timeout=10)
    assert process.returncode == 0
    meta = store.get(answer.strip())
    assert meta is not None and meta.size == len(b"half of it")
    assert list((tmp_path / "tmp").iterdir()) == []


def test_other_leftovers_go_only_once_they_are_an_hour_old(tmp_path: Path) -> None:
    _store(tmp_path)
    recent = tmp_path / "tmp" / "recent.scratch"
    old = tmp_path / "tmp" / "old.scratch"
    for path in (recent, old):
        path.write_bytes(b"x")
    an_hour_ago = time.time() - STALE_AFTER_SECONDS - 60
    os.utime(old, (an_hour_ago, an_hour_ago))
    _store(tmp_path)
    assert recent.is_file()
    assert not old.exists()
