"""One row of the reliability report (`Row`), and the sections they are saved in."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from servelab.bench.load.k6 import k6_binary, k6_version
from servelab.bench.measure.machine import this_machine
from servelab.project import Project


class Verdict(StrEnum):
    PASS = "pass"  # noqa: S105 (a verdict, not a password)
    FAIL = "fail"


@dataclass(frozen=True)
class Row:
    """What was tried against what, what the goal expects, what was seen, and the figures
    behind it (names with their unit: `failed`, `recovered_s`, `rss_growth_mib`)."""

    probe: str
    target: str
    expected: str
    observed: str
    verdict: Verdict
    figures: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Section:
    """One probe class's rows from one run: `servelab fuzz files` is section `fuzz-files`."""

    name: str
    title: str
    command: str
    written: str
    machine: str
    probes: Sequence[Row]
    notes: str = ""


def write_section(
    project: Project,
    name: str,
    title: str,
    command: str,
    probes: Sequence[Row],
    notes: str = "",
) -> Path:
    """Save a section (replacing the same section's last run); returns its JSON path."""
    section = Section(
        name=name,
        title=title,
        command=command,
        written=f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        machine=this_machine(k6_version(k6_binary())).describe(),
        probes=list(probes),
        notes=notes,
    )
    path = project.results / "reliability" / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(section), indent=1, ensure_ascii=False) + "\n")
    return path


def row(raw: Mapping[str, Any]) -> Row:
    """A row as saved (asdict of a Row)."""
    figures = {str(key): float(value) for key, value in raw.get("figures", {}).items()}
    return Row(**{**raw, "verdict": Verdict(raw["verdict"]), "figures": figures})


def load_sections(project: Project) -> list[Section]:
    """Every saved section, by name."""
    sections = []
    for path in sorted((project.results / "reliability").glob("*.json")):
        raw = json.loads(path.read_text())
        sections.append(Section(**{**raw, "probes": [row(p) for p in raw["probes"]]}))
    return sections
