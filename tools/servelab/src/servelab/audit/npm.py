"""The web app's package-lock.json through `npm audit --package-lock-only`: the npm registry's
advisories (GitHub's advisory database) for every locked package, nothing installed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from servelab.audit.findings import Finding, Scan

WEB_APP = Path("services/entryeditor-web")
LOCK = str(WEB_APP / "package-lock.json")


def _advisory_id(via: dict[str, Any]) -> str:
    """GHSA-... from the advisory's URL, else npm's own number."""
    url = str(via.get("url", ""))
    last = url.rstrip("/").rpartition("/")[2]
    return last if last.upper().startswith("GHSA-") else str(via.get("source", "?"))


def _versions(lock: dict[str, Any], nodes: list[str]) -> str:
    packages = lock.get("packages", {})
    found = sorted({str(packages.get(node, {}).get("version", "?")) for node in nodes})
    return ", ".join(found) or "?"


def parse_report(
    report: dict[str, Any], lock: dict[str, Any], name: str = LOCK
) -> tuple[int, list[Finding], list[str]]:
    """npm audit's JSON (auditReportVersion 2): the packages checked, one finding per advisory
    and vulnerable package (a package flagged only through a dependency names none of its
    own), or why the registry gave no answer."""
    if "error" in report or "vulnerabilities" not in report:
        error = report.get("error") or {}
        why = error.get("summary") or report.get("message") or "no audit report"
        return 0, [], [f"npm audit: {why}"]
    findings: dict[tuple[str, str], Finding] = {}
    for entry in report["vulnerabilities"].values():
        for via in entry.get("via", []):
            if not isinstance(via, dict):
                continue
            finding = Finding(
                lock=name,
                package=str(via.get("name", entry["name"])),
                version=_versions(lock, entry.get("nodes", [])),
                id=_advisory_id(via),
                fixed_in=(),
                summary=f"{via.get('title', '')} (affected: {via.get('range', '?')})",
            )
            findings[(finding.package, finding.id)] = finding
    checked = int(report.get("metadata", {}).get("dependencies", {}).get("total", 0))
    return checked, list(findings.values()), []


def scan_npm(root: Path) -> Scan:
    """package-lock.json's audit."""
    folder = root / WEB_APP
    try:
        done = subprocess.run(
            ["npm", "audit", "--package-lock-only", "--json"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        report = json.loads(done.stdout)
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as error:
        return Scan(LOCK, 0, unchecked=(f"npm audit: {error}",))
    lock = json.loads((folder / "package-lock.json").read_text())
    checked, findings, unchecked = parse_report(report, lock)
    return Scan(LOCK, checked, tuple(findings), tuple(unchecked))
