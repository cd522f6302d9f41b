"""docs/findings.md answers every family's questions from the committed runs, says
what to run where it cannot, links evidence that exists, and is what the code writes now."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from servelab.bench.findings.page import load_families, render, write_findings
from servelab.project import Project
from servelab.spec.family import families
from servelab.spec.questions import load_questions


def test_the_committed_page_is_what_the_committed_runs_give(project: Project) -> None:
    page = project.root / "docs" / "findings.md"
    families = load_families(project, project.reference)
    expected = render(families, page, "servelab findings", project.noise)
    assert page.read_text() == expected, "run `uv run servelab findings` and commit the page"


def test_every_question_is_answered_or_says_what_to_run(project: Project) -> None:
    text = (project.root / "docs" / "findings.md").read_text()
    for family in families(project):
        for rule in load_questions(project, family):
            assert f"### {rule.question}" in text, (family, rule.question)
    for line in text.splitlines():
        if line.startswith("- **Ours:** cannot answer here"):
            assert "run `" in line, line
    assert not re.search(r"\bissue\b", text, re.IGNORECASE)


def test_every_link_names_a_file_that_exists(project_root: Path) -> None:
    page = project_root / "docs" / "findings.md"
    links = re.findall(r"\]\(([^)#]+)\)", page.read_text())
    assert links
    for link in links:
        assert (page.parent / link).is_file(), link


def test_a_run_apart_gets_its_own_page_and_its_agreement_with_the_reference(
    project: Project, tmp_path: Path
) -> None:
    for name in ("hello.json", "wait.json"):
        shutil.copy(project.reference / name, tmp_path / name)
    page = write_findings(project, tmp_path)
    assert page == tmp_path / "findings.md"
    assert "[hello](hello.md)" in page.read_text()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "servelab.cli",
            "findings",
            "--results",
            str(tmp_path),
            "--against",
            str(project.reference),
        ],
        cwd=project.root,
        capture_output=True,
        text=True,
        check=True,
    )
    assert re.search(r"give the same answer to \d+ of the \d+ questions", done.stdout)
