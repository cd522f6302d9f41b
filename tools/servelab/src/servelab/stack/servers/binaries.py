"""The Debian packages' server binaries, found on PATH or in the sbin directories that a
user's PATH may lack."""

from __future__ import annotations

import shutil
from pathlib import Path

_SBIN = ("/usr/sbin", "/usr/local/sbin", "/usr/bin")


class ServerError(RuntimeError):
    """A private server could not be set up, started or stopped."""


def find(name: str, package: str) -> str:
    found = shutil.which(name) or next(
        (str(Path(d, name)) for d in _SBIN if Path(d, name).is_file()), None
    )
    if found is None:
        raise ServerError(f"{name} not found: run `make bootstrap` (Debian package {package})")
    return found
