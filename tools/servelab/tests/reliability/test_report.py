"""docs/results/reliability.md joins every saved section: a re-run section replaces only
its own rows, and a failing probe stands out."""

from __future__ import annotations

import re
from pathlib import Path

from servelab.project import Project
from servelab.reliability.report import render_reliability
from servelab.reliability.rows import Row, Verdict, load_sections, write_section


def _cells(line: str) -> list[str]:
    """A Markdown table row's cells, without their padding."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]


def _rows(page: str) -> list[list[str]]:
    return [_cells(line) for line in page.splitlines() if line.startswith("|")]


def _probe(target: str, verdict: Verdict) -> Row:
    return Row(
        probe="SIGKILL one worker under load",
        target=target,
        expected="whole again within 2 s",
        observed="whole after 0.4 s",
        verdict=verdict,
        figures={"recovered_s": 0.4},
    )


def test_a_section_run_again_replaces_only_its_own_rows(tmp_path: Path) -> None:
    project = Project(tmp_path)
    write_section(project, "outage", "Outages", "servelab outage", [_probe("a", Verdict.PASS)])
    write_section(project, "soak", "Soak", "servelab soak", [_probe("b", Verdict.PASS)])
    write_section(project, "outage", "Outages", "servelab outage", [_probe("c", Verdict.FAIL)])

    sections = load_sections(project)

    assert [(s.name, [p.target for p in s.probes]) for s in sections] == [
        ("outage", ["c"]),
        ("soak", ["b"]),
    ]
    assert sections[0].probes[0].figures == {"recovered_s": 0.4}


def test_the_page_counts_and_marks_failures(tmp_path: Path) -> None:
    project = Project(tmp_path)
    write_section(
        project,
        "fuzz-files",
        "Fuzzing: files",
        "servelab fuzz files",
        [_probe("files-uvicorn", Verdict.PASS), _probe("files-gunicorn | nginx", Verdict.FAIL)],
    )

    page = render_reliability(load_sections(project))

    assert ["[Fuzzing: files](#fuzz-files)", "2", "1", "1"] in [row[:4] for row in _rows(page)]
    assert "files-gunicorn \\| nginx" in [row[1] for row in _rows(page)]
    assert page.count("**fail**") == 1


def _drill(target: str, failed: int, back_s: float) -> Row:
    return Row(
        probe="SIGTERM (docker stop) under constant load",
        target=f"{target}: GET /hello at 100/s (drill sigterm-{target})",
        expected="new ones refused in under 0.5 s",
        observed="refused after 0.1 s",
        # The server's own goal may pass while clients lose many requests.
        verdict=Verdict.PASS,
        figures={"answers": 1500.0, "failed": float(failed), "whole_again_s": back_s},
    )


def test_the_page_opens_with_what_a_deployer_must_do_judged_by_requests_lost(
    tmp_path: Path,
) -> None:
    project = Project(tmp_path)
    write_section(
        project,
        "sigterm",
        "SIGTERM under constant load",
        "servelab outage --kind sigterm",
        [_drill("hello-uvicorn", 218, 2.7), _drill("hello-uwsgi-http", 79, 1.3)],
    )
    write_section(
        project,
        "rolling-restart",
        "A rolling restart behind nginx",
        "servelab outage --kind rolling-restart",
        [_drill("hello-replicas", 0, 0.0)],
    )

    page = render_reliability(load_sections(project))
    opening = page[page.index("## What a deployer must do") : page.index("## Every section")]

    rows = [row for row in _rows(opening) if row[0].startswith("[")]
    # The event that lost most comes first, with its worst case by requests lost.
    assert rows[0][0] == "[SIGTERM under constant load](#sigterm)"
    assert rows[0][1].startswith("hello-uvicorn: ")
    assert "218 of 1,500 lost, every answer a 2xx again after 2.7 s" in rows[0][1]
    assert rows[0][2] == "hello-uwsgi-http: GET /hello at 100/s: 79 of 1,500 lost"
    assert "run two or more replicas behind nginx" in rows[0][3]
    assert "0 of 1,500 lost" in rows[1][1]
    assert page.index("## What a deployer must do") < page.index("<a id=")
