"""The audit's verdict: each finding explained by an accepted entry or not."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from packaging.utils import canonicalize_name

from servelab.audit.findings import Finding, Scan
from servelab.audit.ignores import Accepted


@dataclass(frozen=True)
class Verdict:
    scans: tuple[Scan, ...]
    explained: tuple[tuple[Finding, Accepted], ...]
    unexplained: tuple[Finding, ...]
    # Entries no finding matched: reported, not failed (PyPI and OSV answer differently).
    stale: tuple[Accepted, ...]

    @property
    def complete(self) -> bool:
        """Every package of every lock checked."""
        return not any(scan.unchecked for scan in self.scans)

    @property
    def passed(self) -> bool:
        """Every package checked, and every finding accepted with a reason."""
        return self.complete and not self.unexplained


def _accepts(entry: Accepted, finding: Finding) -> bool:
    return entry.id.upper() in finding.ids and canonicalize_name(
        entry.package
    ) == canonicalize_name(finding.package)


def judge(scans: Iterable[Scan], accepted: Iterable[Accepted]) -> Verdict:
    scans = tuple(scans)
    entries = tuple(accepted)
    explained: list[tuple[Finding, Accepted]] = []
    unexplained: list[Finding] = []
    used: set[Accepted] = set()
    for finding in (finding for scan in scans for finding in scan.findings):
        entry = next((entry for entry in entries if _accepts(entry, finding)), None)
        if entry is None:
            unexplained.append(finding)
        else:
            explained.append((finding, entry))
            used.add(entry)
    complete = not any(scan.unchecked for scan in scans)
    stale = tuple(entry for entry in entries if entry not in used) if complete else ()
    return Verdict(scans, tuple(explained), tuple(unexplained), stale)
