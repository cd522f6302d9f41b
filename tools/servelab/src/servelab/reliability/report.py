"""Render docs/results/reliability.md from every saved section."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from servelab.project import results_dir
from servelab.reliability.lessons import lessons
from servelab.reliability.rows import Section, Verdict, load_sections


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_reliability(sections: Sequence[Section]) -> str:
    lines = [
        "# Reliability",
        "",
        "What servelab's services survive: every bad input, fault and shutdown the reliability "
        "suite tries, against which deploy variant, what the goal expects and what was seen. "
        "Each section is written by the command it names; `servelab reliability` joins them.",
        "",
        *lessons(sections),
        "## Every section",
        "",
        "| section | probes | pass | fail | written |",
        "|---|---|---|---|---|",
    ]
    for section in sections:
        passed = sum(p.verdict is Verdict.PASS for p in section.probes)
        lines.append(
            f"| [{_cell(section.title)}](#{section.name}) | {len(section.probes)} | {passed} | "
            f"{len(section.probes) - passed} | {section.written} |"
        )
    for section in sections:
        lines += [
            "",
            f'<a id="{section.name}"></a>',
            f"## {section.title}",
            "",
            f"`{section.command}` on {section.written}. Machine: {section.machine}.",
            "",
            "| probe | target | expected | observed | verdict |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {_cell(p.probe)} | {_cell(p.target)} | {_cell(p.expected)} | "
            f"{_cell(p.observed)} | {'**fail**' if p.verdict is Verdict.FAIL else 'pass'} |"
            for p in section.probes
        ]
        if section.notes:
            lines += ["", section.notes.strip()]
    return "\n".join(lines) + "\n"


def write_reliability(project_dir: Path) -> Path:
    """docs/results/reliability.md from the sections saved so far; returns its path."""
    path = results_dir(project_dir) / "reliability.md"
    path.write_text(render_reliability(load_sections(project_dir)))
    return path
