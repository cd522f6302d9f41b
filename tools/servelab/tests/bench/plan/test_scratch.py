"""Where the benchmark's servers write: a tmpfs of the run's own, or the project's disk."""

from __future__ import annotations

from pathlib import Path

from servelab.bench.plan.scratch import SHM, server_files

UWSGI_SOCKET = "volumes/entryeditor-socket/entryeditor.sock"


def _mounts(tmp_path: Path, shm: Path, shm_type: str) -> Path:
    mounts = tmp_path / "mounts"
    mounts.write_text(
        "/dev/vda / ext4 rw,relatime 0 0\n"
        f"shm {shm} {shm_type} rw,relatime 0 0\n"
        "proc /proc proc rw 0 0\n"
    )
    return mounts


def test_a_tmpfs_directory_of_the_run_is_made_and_removed(tmp_path: Path) -> None:
    shm = tmp_path / "shm"
    shm.mkdir()
    work = tmp_path / "work"
    with server_files(
        work, on_disk=False, shm=shm, mounts=_mounts(tmp_path, shm, "tmpfs")
    ) as files:
        assert files.parent.parent == shm
        assert files.parent.is_dir()
        assert files.parent.stat().st_mode & 0o777 == 0o700
        assert files.described == f"on a tmpfs ({shm})"
        # The entry editor's uWSGI socket under a stack's run directory there, as on
        # /dev/shm: within the 102 bytes uWSGI takes, whatever the runner's pid.
        socket = SHM / files.parent.name / "servelab-abcd1234" / UWSGI_SOCKET
        assert len(str(socket)) <= 102
        (files.parent / "volumes" / "upload").mkdir(parents=True)
    assert not files.parent.exists()


def test_on_disk_or_without_a_tmpfs_the_work_directory_is_used(tmp_path: Path) -> None:
    shm = tmp_path / "shm"
    shm.mkdir()
    work = tmp_path / "work"
    tmpfs = _mounts(tmp_path, shm, "tmpfs")
    with server_files(work, on_disk=True, shm=shm, mounts=tmpfs) as files:
        assert files.parent == work
        assert files.described == f"on the project's disk (ext4 under {work})"
    not_tmpfs = _mounts(tmp_path, shm, "ext4")
    with server_files(work, on_disk=False, shm=shm, mounts=not_tmpfs) as files:
        assert files.parent == work
    assert list(shm.iterdir()) == []
