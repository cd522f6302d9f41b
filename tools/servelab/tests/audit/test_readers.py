"""The two tools' reports read into findings, and uv.lock exported so that every locked
version is audited."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from servelab.audit.npm import parse_report as parse_npm
from servelab.audit.python import layers, locked_pins
from servelab.audit.python import parse_report as parse_pip_audit

# pip-audit 2.10's `--format json`: one package with an advisory, one clean, one skipped.
PIP_AUDIT: dict[str, Any] = {
    "dependencies": [
        {
            "name": "jinja2",
            "version": "3.1.4",
            "vulns": [
                {
                    "id": "GHSA-q2x7-8rv6-6q7h",
                    "fix_versions": ["3.1.5"],
                    "aliases": ["CVE-2024-56201"],
                    "description": "Jinja has a sandbox\nbreakout",
                }
            ],
        },
        {"name": "idna", "version": "3.20", "vulns": []},
        {
            "name": "private-thing",
            "skip_reason": "Dependency not found on PyPI and could not be audited: x (1.0)",
        },
    ],
    "fixes": [],
}

# npm 10's `npm audit --json` (auditReportVersion 2): vite has its own advisory, vitest is
# flagged only through vite.
NPM_AUDIT: dict[str, Any] = {
    "auditReportVersion": 2,
    "vulnerabilities": {
        "vite": {
            "name": "vite",
            "severity": "moderate",
            "isDirect": True,
            "via": [
                {
                    "source": 1102345,
                    "name": "vite",
                    "dependency": "vite",
                    "title": "Vite's server.fs.deny is bypassed",
                    "url": "https://github.com/advisories/GHSA-xcj6-pq6g-qj4x",
                    "severity": "moderate",
                    "range": ">=7.0.0 <7.0.7",
                }
            ],
            "effects": ["vitest"],
            "range": "7.0.0 - 7.0.6",
            "nodes": ["node_modules/vite"],
            "fixAvailable": True,
        },
        "vitest": {
            "name": "vitest",
            "severity": "moderate",
            "isDirect": True,
            "via": ["vite"],
            "effects": [],
            "range": "*",
            "nodes": ["node_modules/vitest"],
            "fixAvailable": True,
        },
    },
    "metadata": {"dependencies": {"prod": 20, "dev": 137, "total": 157}},
}
NPM_LOCK = {"packages": {"node_modules/vite": {"version": "7.0.6"}}}


def test_pip_audit_findings_carry_aliases_and_fixed_versions() -> None:
    checked, findings, skipped = parse_pip_audit(PIP_AUDIT)
    assert checked == 2
    [finding] = findings
    assert (finding.package, finding.version, finding.id) == (
        "jinja2",
        "3.1.4",
        "GHSA-q2x7-8rv6-6q7h",
    )
    assert "CVE-2024-56201" in finding.ids
    assert finding.fixed_in == ("3.1.5",)
    assert finding.summary == "Jinja has a sandbox breakout"
    assert skipped == [PIP_AUDIT["dependencies"][2]["skip_reason"]]


def test_npm_findings_are_the_advisories_not_the_packages_flagged_through_them() -> None:
    checked, findings, unchecked = parse_npm(NPM_AUDIT, NPM_LOCK)
    assert (checked, unchecked) == (157, [])
    [finding] = findings
    assert (finding.package, finding.version, finding.id) == (
        "vite",
        "7.0.6",
        "GHSA-xcj6-pq6g-qj4x",
    )
    assert ">=7.0.0 <7.0.7" in finding.summary


def test_an_npm_registry_without_the_audit_endpoint_leaves_the_lock_unchecked() -> None:
    refused = {
        "message": "405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk",
        "error": {"summary": "", "detail": ""},
    }
    checked, findings, unchecked = parse_npm(refused, NPM_LOCK)
    assert (checked, findings) == (0, [])
    assert unchecked == [f"npm audit: {refused['message']}"]


def test_layers_hold_no_name_twice_and_lose_no_pin() -> None:
    pins = [("django", "5.2.19"), ("django", "6.1.3"), ("idna", "3.20"), ("numpy", "2.4.6")]
    grouped = layers(pins)
    assert all(len({name for name, _ in layer}) == len(layer) for layer in grouped)
    assert sorted(pin for layer in grouped for pin in layer) == pins
    assert len(grouped) == 2


def test_every_version_uv_lock_pins_from_an_index_is_exported(project_root: Path) -> None:
    lock = tomllib.loads((project_root / "uv.lock").read_text())
    from_index = {
        (re.sub(r"[-_.]+", "-", package["name"]).lower(), package["version"])
        for package in lock["package"]
        if "registry" in package.get("source", {})
    }
    assert set(locked_pins(project_root)) == from_index
