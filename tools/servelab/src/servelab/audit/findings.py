"""What an audit of one lock file found, whichever tool read it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One advisory against one locked package."""

    lock: str
    package: str
    version: str
    id: str
    aliases: tuple[str, ...] = ()
    fixed_in: tuple[str, ...] = ()
    summary: str = ""

    @property
    def ids(self) -> frozenset[str]:
        """The advisory's id and its aliases (CVE, GHSA, PYSEC), upper case."""
        return frozenset(name.upper() for name in (self.id, *self.aliases))


@dataclass(frozen=True)
class Scan:
    """One lock file's audit: how many packages the advisory service answered for, what it
    found, and each package or step that could not be checked, with why."""

    lock: str
    checked: int
    findings: tuple[Finding, ...] = ()
    unchecked: tuple[str, ...] = ()

    @property
    def unanswered(self) -> bool:
        """The advisory service answered for no package at all (unreachable, refused)."""
        return self.checked == 0 and bool(self.unchecked)
