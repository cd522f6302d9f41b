"""The web app's lock scanned end to end by npm audit, against a stand-in npm registry on
loopback that knows one advisory for Vite: the advisory found at the locked version, once,
and a registry without the audit endpoint leaving the lock unchecked. npm reads its registry
and its cache from the environment: a cache of the test's own, since npm keeps the advisories
it was given there, whichever registry gave them."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from servelab.audit.npm import WEB_APP, scan_npm

from .conftest import Answering, Start

# node runs npm.
pytestmark = pytest.mark.heavy

BULK = "/-/npm/v1/security/advisories/bulk"
ADVISORY = {
    "id": 1,
    "url": "https://github.com/advisories/GHSA-2099-aaaa-bbbb",
    "title": "Vite serves files outside its root",
    "severity": "moderate",
    "vulnerable_versions": "<99.0.0",
    "cwe": [],
    "cvss": {"score": 0, "vectorString": None},
}


class Registry(Answering):
    """The bulk advisory endpoint; no package documents (npm then offers no fix)."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        asked = json.loads(body)
        self.answer(
            200 if self.path == BULK else 404, {"vite": [ADVISORY]} if "vite" in asked else {}
        )

    def do_GET(self) -> None:
        self.answer(404, {"error": "not found"})


class Mirror(Answering):
    """A registry mirror without the audit endpoint."""

    def do_POST(self) -> None:
        self.answer(405, {})


@pytest.fixture
def registry(
    stand_in: Start, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Callable[[type[Answering]], None]:
    def use(handler: type[Answering]) -> None:
        monkeypatch.setenv("npm_config_registry", stand_in(handler) + "/")
        monkeypatch.setenv("npm_config_cache", str(tmp_path / "npm-cache"))

    return use


def locked_vite(project_root: Path) -> str:
    lock = json.loads((project_root / WEB_APP / "package-lock.json").read_text())
    return str(lock["packages"]["node_modules/vite"]["version"])


def test_the_advisory_is_found_once_at_the_locked_version(
    project_root: Path, registry: Callable[[type[Answering]], None]
) -> None:
    registry(Registry)
    scan = scan_npm(project_root)
    assert scan.unchecked == ()
    assert scan.checked > 100
    [finding] = scan.findings
    assert (finding.package, finding.version, finding.id) == (
        "vite",
        locked_vite(project_root),
        "GHSA-2099-aaaa-bbbb",
    )


def test_a_registry_without_the_audit_endpoint_leaves_the_lock_unchecked(
    project_root: Path, registry: Callable[[type[Answering]], None]
) -> None:
    registry(Mirror)
    scan = scan_npm(project_root)
    assert scan.unanswered
    assert scan.unchecked[0].startswith("npm audit: 405")
