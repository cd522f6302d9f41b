"""Which filesystem a path lies on, from the kernel's mount table (Linux)."""

from __future__ import annotations

from pathlib import Path

MOUNTS = Path("/proc/self/mounts")
# Filesystems whose files live in memory: a read or a new file never waits for a disk.
MEMORY_FILESYSTEMS = frozenset({"tmpfs", "ramfs"})


def filesystem(path: Path, mounts: Path = MOUNTS) -> tuple[str, str] | None:
    """(mount point, type) of the filesystem `path` lies on: its longest mount point's;
    None where the table cannot be read (another OS)."""
    try:
        lines = mounts.read_text().splitlines()
    except OSError:
        return None
    resolved = path.resolve()
    found: tuple[str, str] | None = None
    for line in lines:
        fields = line.split()
        if len(fields) < 3:
            continue
        # The table writes a space in a mount point as \040.
        point = fields[1].replace("\\040", " ")
        if resolved.is_relative_to(point) and (found is None or len(point) >= len(found[0])):
            found = (point, fields[2])
    return found
