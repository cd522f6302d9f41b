"""`make audit`'s verdict on the committed locks: no known vulnerability that audit-ignore.toml
does not accept with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from servelab.audit.run import audit, report
from servelab.project import Project

# pip-audit asks PyPI's JSON API and npm audit the npm registry's advisory endpoint.
pytestmark = pytest.mark.network


def test_the_locks_have_no_unexplained_known_vulnerability(project_root: Path) -> None:
    verdict = audit(Project(project_root))
    unanswered = [scan for scan in verdict.scans if scan.unanswered]
    if unanswered:
        pytest.skip(
            "the advisory service answered for no package of "
            + "; ".join(f"{scan.lock} ({scan.unchecked[0]})" for scan in unanswered)
        )
    assert verdict.passed, "\n".join(report(verdict))
