"""FSYNC: with it (the default) an upload's file, its metadata and the directory they are
renamed into are synced to the disk before the upload is answered; without it, none is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from files_service.settings import Settings
from files_service.store.storage import ObjectStore


def _synced_while_committing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, fsync: bool
) -> tuple[ObjectStore, list[str]]:
    store = ObjectStore(tmp_path, chunk_size=4096, fsync=fsync)
    store.prepare()
    synced: list[str] = []
    real_fsync = os.fsync

    def recording_fsync(fd: int) -> None:
        synced.append(str(Path(f"/proc/self/fd/{fd}").readlink()))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", recording_fsync)
    with store.upload() as upload:
        upload.write(b"durable")
        meta = store.commit(upload, filename="a.bin", content_type="text/plain")
    assert Path(store.blob_path(meta)).read_bytes() == b"durable"
    return store, synced


def test_fsync_is_on_unless_turned_off() -> None:
    assert Settings().fsync is True
    assert Settings(fsync=False).fsync is False


def test_a_commit_syncs_the_file_its_metadata_and_then_the_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, synced = _synced_while_committing(tmp_path, monkeypatch, fsync=True)
    tmp_dir = str(store.tmp_dir.resolve())
    assert [Path(path).parent == Path(tmp_dir) for path in synced[:2]] == [True, True]
    assert synced[0].endswith(".part")
    assert synced[1].endswith(".json")
    assert synced[2:] == [str(store.objects_dir.resolve())]


def test_without_fsync_a_commit_syncs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, synced = _synced_while_committing(tmp_path, monkeypatch, fsync=False)
    assert synced == []
