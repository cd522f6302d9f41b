"""Each probe's section of docs/results/reliability.md, written by `servelab probe NAME`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from servelab.project import Project
from servelab.reliability.faults import aborts, disk_full
from servelab.reliability.faults.coldstart import DEFAULT_SECONDS, probe_coldstart
from servelab.reliability.faults.dependencies import probe_dependencies
from servelab.reliability.report import write_reliability
from servelab.reliability.rows import Row, write_section
from servelab.spec.reliability import Dependencies, StoreFaults, chosen


def dependency_targets(project: Project) -> list[Dependencies]:
    """Every family's [faults.dependencies]."""
    return list(chosen(project, lambda spec: spec.faults.dependencies, "dependencies").values())


def store_targets(project: Project) -> list[StoreFaults]:
    """Every family's [faults.store]."""
    return list(chosen(project, lambda spec: spec.faults.store, "store faults").values())


def write_dependencies(project: Project) -> Path:
    probes: list[Row] = []
    notes: list[str] = []
    for target in dependency_targets(project):
        rows, tables, command = probe_dependencies(project, target)
        probes += rows
        notes += [f"{target.notes} k6: `{' '.join(command)}`.", *tables]
    return write_section(
        project,
        "dependencies",
        "Dependency outages: the entry editor's database, Redis and compute service",
        "servelab probe dependencies",
        probes,
        "\n\n".join(notes),
    )


def write_disk_full(project: Project) -> Path:
    return write_section(
        project,
        "disk-full",
        "Disk full: the files service's storage on a small tmpfs",
        "servelab probe disk-full",
        [disk_full.probe_variant(project, t, s) for t in store_targets(project) for s in t.stacks],
        f"The storage volume is a {disk_full.TMPFS_SIZE} tmpfs mounted by the probe (root) and "
        "unmounted afterwards; uploads of 1 MiB alternate raw and multipart bodies until four "
        "are refused; then every stored file is downloaded and compared by SHA-256, two are "
        "deleted and one raw and one multipart upload must be accepted again.",
    )


def write_aborts(project: Project) -> Path:
    return write_section(
        project,
        "aborts",
        "Client aborts: uploads and downloads cut mid-way",
        "servelab probe aborts",
        [
            row
            for t in store_targets(project)
            for s in t.stacks
            for row in aborts.probe_variant(project, t, s)
        ],
        "Each abort is a raw socket that sends the headers and half the body (or reads the "
        "first 64 KiB of a download) and resets the connection (SO_LINGER 0). Files left "
        "are counted in the store's tmp/ and as blobs or sidecars without their pair; file "
        "descriptors are /proc/PID/fd summed over the servers' process groups.",
    )


COLDSTART_NOTES = (
    "Each stack starts from nothing through the local runner (a scratch database for the "
    "entry editor, migrated and loaded by its one-shot), and the moment every service's "
    "compose healthcheck passes, which is what `servelab up` waits for, k6 starts the "
    "family's own script at a constant arrival rate (`-e SHAPE=vegeta -e RATE=... "
    "-e DURATION=...`, failures recorded rather than ending the run) with every request "
    "written to a CSV. The rate is each family's rated load: the steady rate of its "
    "benchmark matrix or a goal's rate there, or, for the families whose matrix sends "
    "bursts (wait, health-code), a rate well within what its report shows it answering "
    "(servelab.reliability.faults.coldstart.TARGETS says which). A failure is a non-2xx "
    "answer (by status) or none (connect, read, write, timeout: lib/errors.js's kinds); a "
    "request k6 never started for want of a free VU and a failed check count against the "
    "verdict too. The first request goes out once k6 itself has started (first_sent_s; "
    "first_ok_s is the first success, both from the moment the stack was up)."
)


def write_coldstart(
    project: Project,
    families: Sequence[str] = (),
    seconds: float = DEFAULT_SECONDS,
) -> Path:
    """A section per family, `coldstart-<family>` (as `servelab fuzz` writes `fuzz-<family>`),
    so that one family run again leaves the others as they were measured; returns the last."""
    written = []
    for family in chosen(project, lambda spec: spec.coldstart, "coldstart", families):
        written.append(
            write_section(
                project,
                f"coldstart-{family}",
                f"Cold start: {family} at its rated load from the moment its stack is up",
                f"servelab probe coldstart --family {family} --seconds {seconds:g}",
                probe_coldstart(project, [family], seconds),
                COLDSTART_NOTES,
            )
        )
    return written[-1]


# Probes that only root can run, and why; `servelab probe` with no name skips them elsewhere.
NEEDS_ROOT = {"disk-full": "it mounts a tmpfs under the files store, which needs root"}

PROBES: dict[str, Callable[[Project], Path]] = {
    "dependencies": write_dependencies,
    "disk-full": write_disk_full,
    "aborts": write_aborts,
    "coldstart": write_coldstart,
}


def run_probe(project: Project, name: str, write: Callable[[Project], Path] | None = None) -> Path:
    """Run probe `name` (through `write` where given: its writer with the command line's
    options), save its section and render docs/results/reliability.md."""
    (write or PROBES[name])(project)
    return write_reliability(project)
