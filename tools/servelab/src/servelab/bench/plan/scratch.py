"""Where a benchmark's stacks keep the files their servers write: a tmpfs by default.

Everything a server writes in a cell (the uploads it stores, the request bodies nginx keeps
in files, its sockets and pid files) lives under the stacks' run directories. On a disk,
what a write costs is partly the filesystem's: on the development VM (ext4 without a
journal) creating a file cost 20 µs to 1 ms of kernel CPU, depending on how many files had
been deleted in the same part of the disk in the 30 s before (ext4 skips recently deleted
inodes one by one when it picks a new one). Every cell that stores files deletes them
afterwards, so the next cell's price depended on the cells before it, and a POST /files
cell moved by half between identical runs. On a tmpfs a file costs the same every time,
for the app and for the reference nginx alike. `--on-disk` keeps the files on the
project's disk instead, to measure that filesystem too.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from servicekit.mounts import MEMORY_FILESYSTEMS, MOUNTS, filesystem

# The tmpfs every Linux system mounts; each run makes a directory of its own (mode 0700),
# with a short name: a server's unix socket lies three levels below it (the entry editor's
# uWSGI socket: <run dir>/volumes/entryeditor-socket/entryeditor.sock), and uWSGI refuses a
# socket path longer than 102 bytes ("invalid socket name"). A name carrying the family
# and the runner's pid passed that once the pid had five digits.
SHM = Path("/dev/shm")  # noqa: S108
PREFIX = "servelab-"


@dataclass(frozen=True)
class ServerFiles:
    """The directory the stacks' run directories go under, and how a report names it."""

    parent: Path
    described: str


@contextmanager
def server_files(
    work_dir: Path, *, on_disk: bool, shm: Path = SHM, mounts: Path = MOUNTS
) -> Iterator[ServerFiles]:
    """A directory of this run's own on the tmpfs at /dev/shm (removed afterwards), or the
    work directory where `on_disk` or where the machine has no writable tmpfs there."""
    mounted = filesystem(shm, mounts) if not on_disk else None
    if mounted is None or mounted[1] not in MEMORY_FILESYSTEMS or not os.access(shm, os.W_OK):
        on = filesystem(work_dir, mounts)
        kind = f"{on[1]} " if on else ""
        yield ServerFiles(work_dir, f"on the project's disk ({kind}under {work_dir})")
        return
    parent = Path(tempfile.mkdtemp(prefix=PREFIX, dir=shm))
    try:
        yield ServerFiles(parent, f"on a tmpfs ({shm})")
    finally:
        shutil.rmtree(parent, ignore_errors=True)
