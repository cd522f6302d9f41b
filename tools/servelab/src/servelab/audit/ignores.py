"""audit-ignore.toml: the findings the audit accepts, each with why it does not apply."""

from __future__ import annotations

import tomllib
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

IGNORE_FILE = "audit-ignore.toml"


class IgnoreError(ValueError):
    """audit-ignore.toml cannot be read or an entry lacks a field."""


class Accepted(BaseModel):
    """One advisory accepted for one package: its id (or any alias of it) and the reason."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    package: str = Field(min_length=1)
    reason: str = Field(min_length=1)


class IgnoreFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ignore: list[Accepted] = []


def load_ignores(path: Path) -> tuple[Accepted, ...]:
    """The entries of `path`; none where the file does not exist."""
    if not path.is_file():
        return ()
    try:
        return tuple(IgnoreFile.model_validate(tomllib.loads(path.read_text())).ignore)
    except (tomllib.TOMLDecodeError, ValidationError) as error:
        raise IgnoreError(f"{path.name}: {error}") from error
