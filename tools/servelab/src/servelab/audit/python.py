"""uv.lock through pip-audit: every locked version, for every platform and Python the lock
resolves for, against the Python Packaging Advisory Database (PyPI's JSON API).

uv exports the lock as pinned requirements. pip-audit would drop the pins whose environment
marker this interpreter does not match (Django for Python 3.12 in the images, beside the
3.11 one here) and refuses a name pinned twice, so the markers are dropped and the pins are
split into layers with no name twice; pip-audit runs once a layer, neither resolving nor
installing anything (`--no-deps --disable-pip`)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.utils import canonicalize_name

from servelab.audit.findings import Finding, Scan

LOCK = "uv.lock"
EXPORT = (
    "export",
    "--frozen",
    "--format",
    "requirements.txt",
    "--all-packages",
    "--all-extras",
    "--all-groups",
    "--no-emit-workspace",
    "--no-hashes",
    "--no-header",
    "--no-annotate",
    "--quiet",
)
PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)==(?P<version>[^\s;]+)")
# pip-audit: one HTTP request a package, 15 s each at most (its --timeout).
AUDIT_TIMEOUT_S = 900

Pin = tuple[str, str]


@dataclass(frozen=True)
class Advisories:
    """Where pip-audit asks: PyPI's JSON API (`pypi`, the default) or an OSV API (`osv`:
    api.osv.dev, or the service `osv_url` names)."""

    service: str = "pypi"
    osv_url: str | None = None

    def arguments(self) -> list[str]:
        url = ["--osv-url", self.osv_url] if self.osv_url else []
        return ["--vulnerability-service", self.service, *url]


def uv_command() -> list[str]:
    """uv as `uv run` names it (UV), else the one on PATH, else the module."""
    found = os.environ.get("UV") or shutil.which("uv")
    return [found] if found else [sys.executable, "-m", "uv"]


def locked_pins(root: Path) -> list[Pin]:
    """(name, version) of every package uv.lock pins from an index, markers dropped."""
    done = subprocess.run(
        [*uv_command(), *EXPORT],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"uv export failed: {done.stderr.strip()}")
    matches = (PIN.match(line) for line in done.stdout.splitlines())
    return sorted({(canonicalize_name(m["name"]), m["version"]) for m in matches if m})


def layers(pins: Sequence[Pin]) -> list[list[Pin]]:
    """The pins in as few groups as hold no name twice."""
    grouped: list[list[Pin]] = []
    for name, version in pins:
        layer = next((g for g in grouped if all(n != name for n, _ in g)), None)
        if layer is None:
            grouped.append(layer := [])
        layer.append((name, version))
    return grouped


def parse_report(report: dict[str, Any], lock: str = LOCK) -> tuple[int, list[Finding], list[str]]:
    """pip-audit's JSON: the packages answered for, the findings, the packages skipped."""
    checked = 0
    findings: list[Finding] = []
    skipped: list[str] = []
    for dependency in report.get("dependencies", []):
        if "skip_reason" in dependency:
            skipped.append(dependency["skip_reason"])
            continue
        checked += 1
        findings.extend(
            Finding(
                lock=lock,
                package=dependency["name"],
                version=dependency["version"],
                id=vuln["id"],
                aliases=tuple(vuln.get("aliases", ())),
                fixed_in=tuple(vuln.get("fix_versions", ())),
                summary=" ".join(str(vuln.get("description", "")).split()),
            )
            for vuln in dependency.get("vulns", [])
        )
    return checked, findings, skipped


def _pip_audit(layer: Sequence[Pin], folder: Path, advisories: Advisories) -> dict[str, Any]:
    requirements = folder / "requirements.txt"
    requirements.write_text("".join(f"{name}=={version}\n" for name, version in layer))
    output = folder / "report.json"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip_audit",
            "--requirement",
            str(requirements),
            "--no-deps",
            "--disable-pip",
            *advisories.arguments(),
            "--format",
            "json",
            "--progress-spinner",
            "off",
            "--output",
            str(output),
        ],
        capture_output=True,
        text=True,
        timeout=AUDIT_TIMEOUT_S,
        check=False,
    )
    # pip-audit exits 1 when it found something; the report says what either way.
    if not output.is_file():
        # Its last line: the error (an unreachable service's, after the traceback).
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"pip-audit wrote no report: {last[:500]}")
    report: dict[str, Any] = json.loads(output.read_text())
    return report


def scan_python(root: Path, advisories: Advisories | None = None) -> Scan:
    """uv.lock's audit."""
    try:
        pins = locked_pins(root)
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        return Scan(LOCK, 0, unchecked=(str(error),))
    checked = 0
    findings: list[Finding] = []
    unchecked: list[str] = []
    for layer in layers(pins):
        with tempfile.TemporaryDirectory(prefix="servelab-audit-") as folder:
            try:
                report = _pip_audit(layer, Path(folder), advisories or Advisories())
            except (RuntimeError, subprocess.TimeoutExpired, json.JSONDecodeError) as error:
                unchecked.append(f"{len(layer)} packages: {error}")
                continue
        answered, found, skipped = parse_report(report)
        checked += answered
        findings.extend(found)
        unchecked.extend(skipped)
    return Scan(LOCK, checked, tuple(findings), tuple(unchecked))
