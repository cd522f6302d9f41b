"""What makes `make audit` fail: a finding no entry of audit-ignore.toml accepts, or a package
the advisory service did not answer for (pip-audit itself reports those as "no known
vulnerabilities found")."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelab.audit.findings import Finding, Scan
from servelab.audit.ignores import Accepted, IgnoreError, load_ignores
from servelab.audit.run import report
from servelab.audit.verdict import judge

DJANGO = Finding(
    lock="uv.lock",
    package="django",
    version="5.2.19",
    id="PYSEC-2099-1",
    aliases=("CVE-2099-1234", "GHSA-aaaa-bbbb-cccc"),
    fixed_in=("5.2.20",),
    summary="SQL injection in a lookup nobody uses",
)


def accepted(id: str = "CVE-2099-1234", package: str = "Django") -> Accepted:
    return Accepted(id=id, package=package, reason="the lookup is never called")


def test_a_finding_accepted_by_any_alias_of_its_advisory_passes() -> None:
    verdict = judge([Scan("uv.lock", 200, (DJANGO,))], [accepted()])
    assert verdict.passed
    assert verdict.explained == ((DJANGO, accepted()),)
    assert any("accepted PYSEC-2099-1" in line for line in report(verdict))


@pytest.mark.parametrize(
    "entries", [[], [accepted(id="CVE-2099-9999")], [accepted(package="djangorestframework")]]
)
def test_a_finding_no_entry_accepts_fails(entries: list[Accepted]) -> None:
    verdict = judge([Scan("uv.lock", 200, (DJANGO,))], entries)
    assert not verdict.passed
    assert verdict.unexplained == (DJANGO,)
    lines = report(verdict)
    assert any(line.startswith("UNEXPLAINED PYSEC-2099-1") and "5.2.20" in line for line in lines)


def test_a_package_left_unchecked_fails_with_no_finding() -> None:
    skipped = "Dependency not found on PyPI and could not be audited: django (5.2.19)"
    verdict = judge([Scan("uv.lock", 199, unchecked=(skipped,))], [])
    assert not verdict.passed
    assert f"NOT CHECKED uv.lock: {skipped}" in report(verdict)


def test_an_entry_no_finding_matches_is_reported_without_failing() -> None:
    verdict = judge([Scan("uv.lock", 200)], [accepted()])
    assert verdict.passed
    assert verdict.stale == (accepted(),)
    assert any(
        line.startswith("accepted but not reported by this run: CVE-2099-1234")
        for line in report(verdict)
    )


def test_no_entry_is_called_stale_while_a_package_went_unchecked() -> None:
    verdict = judge([Scan("uv.lock", 0, unchecked=("unreachable",))], [accepted()])
    assert verdict.stale == ()


def test_the_ignore_file_needs_a_reason_for_each_entry(tmp_path: Path) -> None:
    path = tmp_path / "audit-ignore.toml"
    path.write_text('[[ignore]]\nid = "CVE-2099-1234"\npackage = "django"\n')
    with pytest.raises(IgnoreError, match="reason"):
        load_ignores(path)


def test_every_accepted_advisory_is_explained_in_the_security_doc(project_root: Path) -> None:
    doc = (project_root / "docs" / "security.md").read_text()
    section = doc.partition("## Known vulnerabilities")[2]
    assert section, "docs/security.md has no 'Known vulnerabilities' section"
    for entry in load_ignores(project_root / "audit-ignore.toml"):
        assert entry.id in section and entry.package in section, entry
