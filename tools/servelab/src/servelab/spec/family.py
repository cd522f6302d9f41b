"""Reading a family's spec: loadtests/families/<family>.toml, one table holding the family's
matrix, questions, reliability targets and GPU-machine variants, and a part of it validated
by its model, a bad value being one line that names the family, the key and what is wrong."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from servelab.project import Project


class SpecError(ValueError):
    """A family spec that is missing, unreadable or invalid."""


class Spec(BaseModel):
    """The base of every spec model: unknown keys are errors, values never change."""

    model_config = ConfigDict(extra="forbid", frozen=True)


M = TypeVar("M", bound=BaseModel)


def spec_file(project: Project, family: str) -> Path:
    return project.families / f"{family}.toml"


def notes_file(project: Project, family: str) -> Path:
    """The family's report notes (Markdown), beside its spec."""
    return project.families / f"{family}.md"


def families(project: Project) -> list[str]:
    """Every family with a spec."""
    return sorted(path.stem for path in project.families.glob("*.toml"))


def read_spec(project: Project, family: str) -> dict[str, Any]:
    """The family's whole spec; SpecError if there is none or it is not TOML."""
    path = spec_file(project, family)
    if not path.is_file():
        known = ", ".join(families(project)) or "none"
        raise SpecError(f"no family {family!r} (known: {known})")
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except tomllib.TOMLDecodeError as error:
        raise SpecError(f"{path}: {error}") from error


def validate(model: type[M], data: Any, where: str) -> M:
    """`model` built from `data`, or SpecError naming `where`, the first bad key and why."""
    try:
        return model.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        key = ".".join(str(part) for part in first["loc"])
        raise SpecError(": ".join(filter(None, (where, key, first["msg"])))) from error
