"""A stored file's stat and bytes read on the event loop when that cannot wait for a disk.

A download small enough to answer whole (at most CHUNK_SIZE bytes) is read in one go. In a
worker thread that read costs a thread hop each way, more CPU than the read itself when
the file is in the page cache: GET /files/{id} at 100 requests/s cost 1,500 µs of CPU per
request with the hop and 1,170 µs without (uvicorn, the 2-CPU development VM). So the read
runs on the loop where it cannot block, and in a worker thread everywhere else:

- on a filesystem that knows RWF_NOWAIT (ext4, xfs, btrfs), preadv with that flag reads
  only what the page cache holds and fails at once (EAGAIN) where it would wait: the
  thread then reads the file;
- on a memory filesystem (tmpfs, ramfs) a read never waits for a disk;
- on any other (NFS, FUSE) or another OS, the thread does it all, as before.

Opening the file and its fstat run on the loop in the first two cases, as the
X-Accel-Redirect path's stat does: on a local filesystem they read metadata the kernel
holds for a file that was just looked up.
"""

from __future__ import annotations

import contextlib
import enum
import os
from pathlib import Path

import anyio

from servicekit.mounts import MEMORY_FILESYSTEMS, MOUNTS, filesystem

_NOWAIT: int | None = getattr(os, "RWF_NOWAIT", None)

Read = tuple[os.stat_result, bytes | None]


class ReadMode(enum.Enum):
    NOWAIT = "page cache only (RWF_NOWAIT), else a worker thread"
    MEMORY = "on the event loop (a memory filesystem)"
    THREAD = "in a worker thread"


def read_mode(directory: Path, mounts: Path = MOUNTS) -> ReadMode:
    """How reads of files under `directory` are done, found once at start."""
    if _reads_nowait(directory):
        return ReadMode.NOWAIT
    mounted = filesystem(directory, mounts)
    if mounted is not None and mounted[1] in MEMORY_FILESYSTEMS:
        return ReadMode.MEMORY
    return ReadMode.THREAD


def _reads_nowait(directory: Path) -> bool:
    """Whether a read with RWF_NOWAIT works on a file of its own written there: not where
    the filesystem refuses the flag (EOPNOTSUPP), nor where no file can be written (a
    read-only storage, whose readiness probe then says so)."""
    if _NOWAIT is None or not hasattr(os, "preadv"):
        return False
    probe = directory / f".read-mode-{os.getpid()}"
    try:
        probe.write_bytes(b"probe")
        fd = os.open(probe, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.preadv(fd, [bytearray(5)], 0, _NOWAIT)
        finally:
            os.close(fd)
    except OSError:
        return False
    finally:
        with contextlib.suppress(OSError):
            probe.unlink(missing_ok=True)
    return True


async def stat_and_read(mode: ReadMode, blob: str, read_limit: int) -> Read:
    """The file's stat, and its bytes when it holds at most `read_limit` of them."""
    if mode is not ReadMode.THREAD:
        done = _on_loop(blob, read_limit, _NOWAIT if mode is ReadMode.NOWAIT else None)
        if done is not None:
            return done
    return await anyio.to_thread.run_sync(_blocking, blob, read_limit)


def _on_loop(blob: str, read_limit: int, flags: int | None) -> Read | None:
    """The read, unless it would wait for the disk (None: the thread does it)."""
    fd = os.open(blob, os.O_RDONLY | os.O_CLOEXEC)
    try:
        stat = os.fstat(fd)
        if stat.st_size > read_limit:
            return stat, None
        if flags is None:
            data = os.pread(fd, stat.st_size, 0)
        else:
            buffer = bytearray(stat.st_size)
            try:
                read = os.preadv(fd, [buffer], 0, flags)
            except BlockingIOError:
                return None
            # Short where part of the file is not in the page cache.
            if read != stat.st_size:
                return None
            data = bytes(buffer)
    finally:
        os.close(fd)
    return (stat, data) if len(data) == stat.st_size else None


def _blocking(blob: str, read_limit: int) -> Read:
    with Path(blob).open("rb") as file:
        stat = os.fstat(file.fileno())
        data = file.read() if stat.st_size <= read_limit else None
    return stat, data
