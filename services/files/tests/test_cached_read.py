"""Reading a download on the event loop only where that cannot wait for a disk."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from files_service.store import cached_read
from files_service.store.cached_read import ReadMode, read_mode, stat_and_read

DATA = bytes(range(256)) * 1024  # 256 KiB


def _mounts(tmp_path: Path, directory: Path, kind: str) -> Path:
    table = tmp_path / "mounts"
    table.write_text(f"/dev/vda / ext4 rw 0 0\nnone {directory} {kind} rw 0 0\n")
    return table


@pytest.fixture
def blob(tmp_path: Path) -> Path:
    path = tmp_path / "objects" / "blob"
    path.parent.mkdir()
    path.write_bytes(DATA)
    return path


def test_a_filesystem_with_rwf_nowait_reads_from_the_page_cache(tmp_path: Path) -> None:
    """The tests' temporary directory is on a disk (ext4, xfs or btrfs: each has
    RWF_NOWAIT); the probe's file is gone afterwards."""
    probe = tmp_path / "p"
    probe.write_bytes(b"x")
    fd = os.open(probe, os.O_RDONLY)
    try:
        assert os.preadv(fd, [bytearray(1)], 0, os.RWF_NOWAIT) == 1, "no RWF_NOWAIT here"
    finally:
        os.close(fd)
    assert read_mode(tmp_path) is ReadMode.NOWAIT
    assert list(tmp_path.iterdir()) == [probe]


def test_without_rwf_nowait_a_memory_filesystem_reads_on_the_loop_and_others_in_a_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cached_read, "_NOWAIT", None)
    assert read_mode(tmp_path, _mounts(tmp_path, tmp_path, "tmpfs")) is ReadMode.MEMORY
    assert read_mode(tmp_path, _mounts(tmp_path, tmp_path, "nfs4")) is ReadMode.THREAD
    assert read_mode(tmp_path, tmp_path / "no-mount-table") is ReadMode.THREAD


def test_a_storage_where_no_file_can_be_written_reads_in_a_thread(tmp_path: Path) -> None:
    """Not a failed start: the readiness probe is what reports such a storage."""
    assert read_mode(tmp_path / "missing", _mounts(tmp_path, tmp_path, "ext4")) is ReadMode.THREAD


@pytest.mark.parametrize("mode", list(ReadMode))
def test_every_mode_gives_the_stat_and_the_bytes(blob: Path, mode: ReadMode) -> None:
    stat, data = anyio.run(stat_and_read, mode, blob, len(DATA))
    assert data == DATA
    assert stat.st_size == len(DATA)
    assert stat.st_ino == blob.stat().st_ino
    stat, data = anyio.run(stat_and_read, mode, blob, len(DATA) - 1)
    assert data is None
    assert stat.st_size == len(DATA)


@pytest.mark.parametrize("mode", list(ReadMode))
def test_a_missing_file_raises_file_not_found(tmp_path: Path, mode: ReadMode) -> None:
    with pytest.raises(FileNotFoundError):
        anyio.run(stat_and_read, mode, tmp_path / "gone", len(DATA))


def test_a_read_that_would_wait_for_the_disk_goes_to_a_thread(
    blob: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """preadv with RWF_NOWAIT fails with EAGAIN, or reads short, where the page cache lacks
    the file or part of it: the worker thread then reads it whole."""
    threaded: list[Path] = []
    blocking = cached_read._blocking

    def in_thread(path: Path, limit: int) -> cached_read.Read:
        threaded.append(path)
        return blocking(path, limit)

    monkeypatch.setattr(cached_read, "_blocking", in_thread)

    def would_block(fd: int, buffers: list[bytearray], offset: int, flags: int) -> int:
        raise BlockingIOError

    monkeypatch.setattr(os, "preadv", would_block)
    assert anyio.run(stat_and_read, ReadMode.NOWAIT, blob, len(DATA))[1] == DATA
    monkeypatch.setattr(os, "preadv", lambda fd, buffers, offset, flags: 4096)
    assert anyio.run(stat_and_read, ReadMode.NOWAIT, blob, len(DATA))[1] == DATA
    assert threaded == [blob, blob]
