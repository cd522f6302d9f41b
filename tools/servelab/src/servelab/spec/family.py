"""Reading a family's spec: loadtests/families/<family>.toml, one table holding the family's
matrix, questions, reliability targets and GPU-machine variants, and a part of it validated
by its model, a bad value being one line that names the family, the key and what is wrong."""

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


def spec_file(project_dir: Path, family: str) -> Path:
    return families_dir(project_dir) / f"{family}.toml"


def notes_file(project_dir: Path, family: str) -> Path:
    """The family's report notes (Markdown), beside its spec."""
    return families_dir(project_dir) / f"{family}.md"


def families(project_dir: Path) -> list[str]:
    """Every family with a spec."""
    return sorted(path.stem for path in families_dir(project_dir).glob("*.toml"))


def read_spec(project_dir: Path, family: str) -> dict[str, Any]:
    """The family's whole spec; SpecError if there is none or it is not TOML."""
    path = spec_file(project_dir, family)
    if not path.is_file():
        known = ", ".join(families(project_dir)) or "none"
        raise SpecError(f"no family {family!r} (known: {known})")
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"{path}: {error}") from error


def validate(model: type[M], data: Any, where: str) -> M:
    """`model` built from `data`, or SpecError naming `where` and the first bad key."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(part) for part in first["loc"]) or "(top)"
        raise SpecError(f"{where}: {key}: {first['msg']}") from error
