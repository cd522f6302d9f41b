"""`servelab outage <drill>`: an outage drill (loadtests/outage/<drill>.toml).

The drill starts a compose profile (servelab's Stack), sends requests at a constant rate
with k6 (loadtests/outage.js), SIGKILLs one service's process group `kill_at_s` into the
run, starts it again at `restart_at_s` and waits until its healthcheck passes, all while
k6 keeps sending. Every answer k6 got (when, how long, status, Retry-After) comes back
through k6's CSV output; the drill writes what clients saw before, during and after the
outage, and how soon after the service's return every answer was a success again, to
docs/results/outage-<drill>.md (and .json).

drill reads the file, run runs it, analysis reads k6's answers, report writes the page.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from servelab.outage.analysis import Answer, Events, Outcome, analyse, read_answers
from servelab.outage.drill import Drill, DrillError, load_drill, parse_drill
from servelab.outage.report import render
from servelab.outage.run import run_drill
from servelab.project import find_project_dir, results_dir

__all__ = [
    "Answer",
    "Drill",
    "DrillError",
    "Events",
    "Outcome",
    "analyse",
    "load_drill",
    "parse_drill",
    "read_answers",
    "render",
    "run_drill",
    "write_drill",
]


def write_drill(name: str, *, project_dir: Path | None = None) -> Path:
    """Run the drill loadtests/outage/<name>.toml and write docs/results/outage-<name>.md
    (and .json); returns the report's path."""
    project_dir = project_dir or find_project_dir()
    drill = load_drill(project_dir, name)
    outcome, events, command = run_drill(project_dir, drill)
    results = results_dir(project_dir)
    results.mkdir(parents=True, exist_ok=True)
    report = results / f"outage-{drill.name}.md"
    report.write_text(render(drill, outcome, events, command))
    saved = {"drill": asdict(drill), "events": asdict(events), "outcome": asdict(outcome)}
    (results / f"outage-{drill.name}.json").write_text(json.dumps(saved, indent=1) + "\n")
    return report
