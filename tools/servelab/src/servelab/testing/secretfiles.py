"""A container's settings made runnable outside it: each `*_FILE` setting that names a file
in a mounted secrets directory (the entry editor's /run/secrets/entryeditor, from compose's
secrets volume or a Kubernetes Secret) pointed at a local file with a random value."""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path

MOUNT = "/run/secrets/entryeditor/"


def with_secret_files(env: Mapping[str, str], directory: Path) -> dict[str, str]:
    """`env` with each file it names under MOUNT made in `directory` instead, holding a
    random value as long as Django asks a key to be (50 bytes: 67 characters)."""
    local = dict(env)
    for name, value in env.items():
        if name.endswith("_FILE") and value.startswith(MOUNT):
            path = directory / value.removeprefix(MOUNT)
            path.write_text(secrets.token_urlsafe(50))
            local[name] = str(path)
    return local
