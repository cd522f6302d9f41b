"""What a drill's run leaves in docs/results/: its page and saved JSON, and for a kind with
a reliability section, that section joined again from every drill of the kind."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from servelab.project import Project
from servelab.reliability.outage.drill import drills, load_drill
from servelab.reliability.outage.loss import loss
from servelab.reliability.outage.report import render
from servelab.reliability.outage.run import execute
from servelab.reliability.outage.verdicts import GOALS, judge
from servelab.reliability.report import write_reliability
from servelab.reliability.rows import row, write_section


def write_drill(project: Project, name: str) -> Path:
    """Run the drill `name` and write docs/results/outage-<name>.md
    (and .json); returns the report's path. A drill of a kind with a reliability section
    also writes that section again, with its new row."""
    drill = load_drill(project, name)
    ran = execute(project, drill)
    probe = None
    saved: dict[str, object] = {
        "drill": drill.model_dump(exclude={"variant"}),
        "events": asdict(ran.events),
        "outcome": asdict(ran.outcome),
    }
    if drill.kind in GOALS:
        cost = loss(ran.answers, ran.events.killed_ms)
        probe = judge(drill, cost, ran.acted.figures)
        saved |= {
            "marks": ran.acted.marks,
            "loss": asdict(cost),
            "probe": asdict(probe),
            "command": " ".join(ran.command),
        }
    results = project.results
    results.mkdir(parents=True, exist_ok=True)
    report = results / f"outage-{drill.name}.md"
    report.write_text(render(drill, ran.outcome, ran.events, ran.command, ran.acted.marks, probe))
    (results / f"outage-{drill.name}.json").write_text(json.dumps(saved, indent=1) + "\n")
    if probe is not None:
        write_kind_section(project, drill.kind)
    return report


def drill_names(project: Project, kind: str | None = None) -> list[str]:
    """Every family's drills, or those of one kind, by name."""
    return [name for name, drill in drills(project).items() if kind in (None, drill.kind)]


def write_kind_section(project: Project, kind: str) -> Path:
    """docs/results/reliability/<kind>.json from the saved result of every drill of that
    kind (docs/results/outage-<drill>.json), then docs/results/reliability.md."""
    paths = [project.results / f"outage-{name}.json" for name in drill_names(project, kind)]
    saved = [json.loads(path.read_text()).get("probe") for path in paths if path.is_file()]
    probes = [row(raw) for raw in saved if raw]
    section = write_section(
        project,
        kind,
        GOALS[kind].title,
        f"servelab outage --kind {kind}",
        probes,
        notes=f'One row per drill (the families\' [drills] with kind = "{kind}"); each '
        "drill's page, docs/results/outage-<drill>.md, has what clients saw second by second. "
        "The client is k6 at a constant rate; a failure is any answer but a 2xx, or none. "
        "Over a kept-alive connection k6 sends a GET again when the connection breaks before "
        "its answer, as browsers do; a drill with keep_alive = false opens a connection per "
        "request, so that every request the server lost counts.",
    )
    write_reliability(project)
    return section
