"""An outage drill (`[drills.<drill>]` of loadtests/families/<family>.toml,
servelab.spec.reliability.Drill): finding it by name, and k6's environment for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from servelab.project import Project
from servelab.spec.family import SpecError, validate
from servelab.spec.reliability import KINDS, Drill, every_reliability

__all__ = ["KINDS", "Drill", "DrillError", "drills", "k6_env", "load_drill", "parse_drill"]


class DrillError(RuntimeError):
    """The drill is unknown or invalid, or could not run."""


def drills(project: Project) -> dict[str, Drill]:
    """Every family's drills by name, sorted."""
    try:
        found = [d for spec in every_reliability(project).values() for d in spec.drills.values()]
    except SpecError as error:
        raise DrillError(str(error)) from error
    names = [drill.name for drill in found]
    if twice := sorted({name for name in names if names.count(name) > 1}):
        raise DrillError(f"drills defined in two families: {', '.join(twice)}")
    return {drill.name: drill for drill in sorted(found, key=lambda drill: drill.name)}


def load_drill(project: Project, name: str) -> Drill:
    every = drills(project)
    if name not in every:
        raise DrillError(f"no outage drill {name!r} (known: {', '.join(every) or 'none'})")
    return every[name]


def parse_drill(name: str, raw: Mapping[str, Any]) -> Drill:
    """A drill from its table, its profile and service given (no variant to resolve)."""
    try:
        return validate(Drill, {"title": name, **raw, "name": name}, f"outage drill {name}")
    except SpecError as error:
        raise DrillError(str(error)) from error


def k6_env(drill: Drill, base_url: str) -> dict[str, str]:
    """loadtests/outage.js's environment: the drill's request at its constant rate."""
    return {
        "BASE_URL": base_url,
        "ENDPOINT": drill.endpoint,
        "SHAPE": "vegeta",
        "RATE": str(drill.rate),
        "DURATION": f"{drill.duration_s:g}s",
        **({"METHOD": drill.method} if drill.method != "GET" else {}),
        **({"BODY_FILE": drill.body_file} if drill.body_file else {}),
        **({"CONTENT_TYPE": drill.content_type} if drill.content_type else {}),
        **({} if drill.keep_alive else {"NO_REUSE": "1"}),
    }
