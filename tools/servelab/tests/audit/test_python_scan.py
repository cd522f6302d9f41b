"""uv.lock's scan end to end through pip-audit, against a stand-in OSV API on loopback that
knows one advisory for Django: every locked version asked about, the advisory found in both
Django versions the lock pins, and a service that fails leaving the lock unchecked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from servelab.audit.ignores import Accepted
from servelab.audit.python import Advisories, layers, locked_pins, scan_python
from servelab.audit.run import report
from servelab.audit.verdict import judge

from .conftest import Answering, Start

# pip-audit once per layer of uv.lock's 200-odd pins, a request each.
pytestmark = pytest.mark.heavy

ADVISORY = {
    "id": "PYSEC-2099-1",
    "aliases": ["CVE-2099-1234"],
    "summary": "SQL injection in a lookup",
    "affected": [
        {
            "package": {"name": "django", "ecosystem": "PyPI"},
            "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": "99.0"}]}],
        }
    ],
}
WITHDRAWN = {**ADVISORY, "id": "PYSEC-2099-2", "aliases": [], "withdrawn": "2099-01-02T00:00:00Z"}


def osv_api(status: int, asked: list[tuple[str, str]]) -> type[Answering]:
    class OsvApi(Answering):
        def do_POST(self) -> None:
            query: dict[str, Any] = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            name = query["package"]["name"]
            asked.append((name, query["version"]))
            self.answer(status, {"vulns": [ADVISORY, WITHDRAWN]} if name == "django" else {})

    return OsvApi


def test_every_locked_version_is_asked_about_and_both_djangos_found(
    project_root: Path, stand_in: Start
) -> None:
    asked: list[tuple[str, str]] = []
    url = stand_in(osv_api(200, asked)) + "/v1/query"
    scan = scan_python(project_root, Advisories("osv", url))
    pins = locked_pins(project_root)
    assert len(layers(pins)) > 1, "uv.lock pins some name twice (one per Python)"
    assert sorted(asked) == pins
    assert (scan.checked, scan.unchecked) == (len(pins), ())
    djangos = sorted(version for name, version in pins if name == "django")
    assert sorted(f.version for f in scan.findings) == djangos
    assert {f.id for f in scan.findings} == {"PYSEC-2099-1"}
    assert all(f.fixed_in == ("99.0",) for f in scan.findings)

    unexplained = judge([scan], [])
    assert not unexplained.passed
    assert sum(line.startswith("UNEXPLAINED PYSEC-2099-1") for line in report(unexplained)) == 2
    accepted = Accepted(id="CVE-2099-1234", package="django", reason="never called")
    assert judge([scan], [accepted]).passed


def test_a_failing_advisory_service_leaves_the_lock_unchecked(
    project_root: Path, stand_in: Start
) -> None:
    url = stand_in(osv_api(503, [])) + "/v1/query"
    scan = scan_python(project_root, Advisories("osv", url))
    assert scan.unanswered
    assert not judge([scan], []).passed
