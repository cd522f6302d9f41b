"""A secret setting read from its variable or from the file its `<NAME>_FILE` variable names
(a compose secret, a file in a secrets volume, a mounted Kubernetes Secret): the way the
official database images read theirs, so one mounted file serves them and the app alike.
"""

from __future__ import annotations

from pathlib import Path


class SecretConfigError(ValueError):
    """A secret and its file are both set, or the file cannot be read or is empty."""


def read_secret(name: str, value: str | None, path: str | Path | None) -> str | None:
    """The secret `name`: `value` itself, or the stripped content of the file at `path` (a
    mounted secret ends with a newline more often than not); None when neither is set."""
    value = (value or "").strip() or None
    if path is None or not str(path).strip():
        return value
    if value is not None:
        raise SecretConfigError(f"set {name} or {name}_FILE, not both")
    try:
        content = Path(path).read_text(encoding="utf-8").strip()
    except OSError as error:
        raise SecretConfigError(f"{name}_FILE={path}: {error.strerror}") from None
    if not content:
        raise SecretConfigError(f"{name}_FILE={path} is empty")
    return content
