"""Both locks audited and judged against audit-ignore.toml: what `make audit` and its test run."""

from __future__ import annotations

from servelab.audit.findings import Finding
from servelab.audit.ignores import IGNORE_FILE, load_ignores
from servelab.audit.npm import scan_npm
from servelab.audit.python import Advisories, scan_python
from servelab.audit.verdict import Verdict, judge
from servelab.project import Project

# Reasons shown a lock for the packages it could not check (the rest counted).
SHOWN = 5


def audit(project: Project, advisories: Advisories | None = None) -> Verdict:
    """Both locks' scans, judged against audit-ignore.toml; `advisories`: where pip-audit asks."""
    accepted = load_ignores(project.root / IGNORE_FILE)
    return judge((scan_python(project.root, advisories), scan_npm(project.root)), accepted)


def _line(finding: Finding) -> str:
    fixed = f", fixed in {', '.join(finding.fixed_in)}" if finding.fixed_in else ""
    aliases = f" ({', '.join(finding.aliases)})" if finding.aliases else ""
    return f"{finding.id}{aliases} {finding.package} {finding.version}{fixed}: {finding.summary}"


def report(verdict: Verdict) -> list[str]:
    """The verdict as lines: each lock's count, then every finding by what became of it."""
    lines = [
        f"{scan.lock}: {scan.checked} packages checked, {len(scan.findings)} "
        + ("finding" if len(scan.findings) == 1 else "findings")
        for scan in verdict.scans
    ]
    lines += [
        f"accepted {_line(finding)} -- {entry.reason}" for finding, entry in verdict.explained
    ]
    lines += [f"UNEXPLAINED {_line(finding)}" for finding in verdict.unexplained]
    for scan in verdict.scans:
        lines += [f"NOT CHECKED {scan.lock}: {why}" for why in scan.unchecked[:SHOWN]]
        if len(scan.unchecked) > SHOWN:
            lines.append(f"NOT CHECKED {scan.lock}: {len(scan.unchecked) - SHOWN} more")
    lines += [
        f"accepted but not reported by this run: {entry.id} ({entry.package}); once no "
        f"advisory service reports it, remove it from {IGNORE_FILE} and docs/security.md"
        for entry in verdict.stale
    ]
    if verdict.unexplained:
        lines.append(
            f"upgrade each UNEXPLAINED package (uv lock --upgrade-package NAME; npm update NAME "
            f"in the web app), or accept it in {IGNORE_FILE} with why it does not apply"
        )
    return lines
