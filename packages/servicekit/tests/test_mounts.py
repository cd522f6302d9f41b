"""Which filesystem a path lies on, read from a mount table."""

from __future__ import annotations

from pathlib import Path

from servicekit.mounts import filesystem


def test_the_filesystem_of_a_path_is_its_longest_mount_point(tmp_path: Path) -> None:
    shm = tmp_path / "shm"
    spaced = tmp_path / "a b"
    table = tmp_path / "mounts"
    table.write_text(
        "/dev/vda / ext4 rw,relatime 0 0\n"
        f"shm {shm} tmpfs rw,relatime 0 0\n"
        f"server:/x {str(spaced).replace(' ', chr(92) + '040')} nfs4 rw 0 0\n"
        "proc /proc proc rw 0 0\n"
    )
    assert filesystem(shm / "a" / "b", table) == (str(shm), "tmpfs")
    assert filesystem(shm, table) == (str(shm), "tmpfs")
    assert filesystem(spaced / "file", table) == (str(spaced), "nfs4")
    assert filesystem(tmp_path / "shmx", table) == ("/", "ext4")


def test_no_mount_table_is_no_answer(tmp_path: Path) -> None:
    assert filesystem(tmp_path, tmp_path / "no-such-table") is None
