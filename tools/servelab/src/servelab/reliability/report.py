"""Render docs/results/reliability.md from every saved section."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from servelab.markdown import table
from servelab.project import Project
from servelab.reliability.lessons import lessons
from servelab.reliability.rows import Section, Verdict, load_sections

_VERDICTS = {Verdict.PASS: "pass", Verdict.FAIL: "**fail**"}


def _cells(*texts: object) -> list[str]:
    return [str(text).replace("\n", " ") for text in texts]


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
    ]
    lines += table(
        ["section", "probes", "pass", "fail", "written"],
        [
            _cells(
                f"[{s.title}](#{s.name})", len(s.probes), passed, len(s.probes) - passed, s.written
            )
            for s in sections
            for passed in [sum(p.verdict is Verdict.PASS for p in s.probes)]
        ],
    )
    for section in sections:
        lines += [
            f'<a id="{section.name}"></a>',
            f"## {section.title}",
            "",
            f"`{section.command}` on {section.written}. Machine: {section.machine}.",
            "",
        ]
        lines += table(
            ["probe", "target", "expected", "observed", "verdict"],
            [
                _cells(p.probe, p.target, p.expected, p.observed, _VERDICTS[p.verdict])
                for p in section.probes
            ],
        )
        if section.notes:
            lines += [section.notes.strip(), ""]
    return "\n".join(lines[:-1]) + "\n"


def write_reliability(project: Project) -> Path:
    """docs/results/reliability.md from the sections saved so far; returns its path."""
    path = project.results / "reliability.md"
    path.write_text(render_reliability(load_sections(project)))
    return path
