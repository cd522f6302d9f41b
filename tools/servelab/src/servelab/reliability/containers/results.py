"""The reliability report's section `containers`: one row per container drill, a drill's
new run replacing its last row."""

from __future__ import annotations

from pathlib import Path

from servelab.project import Project
from servelab.reliability.containers.verdicts import SECTION
from servelab.reliability.report import write_reliability
from servelab.reliability.rows import Row, load_sections, write_section

TITLE = "Containers killed, restarted and taken down under load"
NOTES = (
    "One row per drill (the families' [container_drills]), each run once against the "
    "compose stack in servelab's private Docker engine on the machine named above, shared "
    "with other work: the figures measure recovery, not speed. The client is k6 at a "
    "constant rate opening a connection per request, so that every request a dead "
    "container loses counts; a request lost is any answer but a 2xx, or none, by kind "
    "(connection refused or reset, timeout, 5xx, 503 with or without Retry-After). The "
    "longest gap is the longest time between two successive 2xx answers. Nothing is "
    "restarted by hand: the restart policies and healthchecks of compose.yaml bring the "
    "stack back."
)


def _drill(row: Row) -> str:
    return row.target.rsplit("(drill ", 1)[-1].rstrip(")")


def write_rows(project: Project, rows: list[Row]) -> Path:
    """Save `rows` in the section over the last rows of the same drills, then
    docs/results/reliability.md; returns the report's path."""
    kept = [
        row
        for section in load_sections(project)
        if section.name == SECTION
        for row in section.probes
    ]
    fresh = {_drill(row) for row in rows}
    joined = sorted([row for row in kept if _drill(row) not in fresh] + rows, key=_drill)
    write_section(project, SECTION, TITLE, "servelab container-drill --all", joined, notes=NOTES)
    return write_reliability(project)
