"""Reading the project's TOML files (matrices, write-ups' figures, outage drills) the same
way: a missing file or key is one line that names it, raised as the reader's own error."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def require(table: Mapping[str, Any], key: str, where: str, error: type[Exception]) -> Any:
    """`table[key]`, or `error("<where>: missing `key`")`."""
    if key not in table:
        raise error(f"{where}: missing `{key}`")
    return table[key]


def read_named(directory: Path, name: str, what: str, error: type[Exception]) -> dict[str, Any]:
    """<directory>/<name>.toml, or `error` listing the names there are."""
    path = directory / f"{name}.toml"
    if not path.is_file():
        known = sorted(p.stem for p in directory.glob("*.toml"))
        raise error(f"no {what} {name!r} (known: {', '.join(known) or 'none'})")
    return read(path)


def read(path: Path) -> dict[str, Any]:
    with path.open("rb") as file:
        return tomllib.load(file)
