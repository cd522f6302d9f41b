"""Reading a family's spec: every TOML file of loadtests/families/<family>/ joined into one
table (each file holds its own top-level keys), and a part of it validated by its model,
a bad value being one line that names the family, the key and what is wrong."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

FAMILIES = Path("loadtests") / "families"


class SpecError(ValueError):
    """A family spec that is missing, unreadable or invalid."""


class Spec(BaseModel):
    """The base of every spec model: unknown keys are errors, values never change."""

    model_config = ConfigDict(extra="forbid", frozen=True)


M = TypeVar("M", bound=BaseModel)


def families_dir(project_dir: Path) -> Path:
    return project_dir / FAMILIES


def family_dir(project_dir: Path, family: str) -> Path:
    return families_dir(project_dir) / family


def families(project_dir: Path) -> list[str]:
    """Every family with a spec."""
    return sorted(p.name for p in families_dir(project_dir).iterdir() if p.is_dir())


def read_spec(project_dir: Path, family: str) -> dict[str, Any]:
    """The family's whole spec as one table; SpecError if there is none or two of its files
    define the same top-level key."""
    directory = family_dir(project_dir, family)
    if not directory.is_dir():
        known = ", ".join(families(project_dir)) or "none"
        raise SpecError(f"no family {family!r} (known: {known})")
    joined: dict[str, Any] = {}
    for path in sorted(directory.glob("*.toml")):
        try:
            with path.open("rb") as file:
                data = tomllib.load(file)
        except tomllib.TOMLDecodeError as error:
            raise SpecError(f"{path}: {error}") from error
        if twice := joined.keys() & data.keys():
            raise SpecError(f"{path}: {', '.join(sorted(twice))} defined twice in {directory}")
        joined.update(data)
    return joined


def validate(model: type[M], data: Any, where: str) -> M:
    """`model` built from `data`, or SpecError naming `where` and the first bad key."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "(top)"
        raise SpecError(f"{where}: {key}: {first['msg']}") from error
