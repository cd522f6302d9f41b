"""Each probe's section of docs/results/reliability.md, written by `servelab probe NAME`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from servelab.reliability import write_reliability, write_section
from servelab.reliability.probe.aborts import probe_aborts
from servelab.reliability.probe.dependencies import probe_dependencies
from servelab.reliability.probe.disk_full import TMPFS_SIZE, probe_disk_full


def dependencies_notes(command: list[str], tables: list[str]) -> str:
    return "\n\n".join(
        [
            "MariaDB, Redis and the compute service are reached through a TCP proxy the "
            "probe controls (servelab.reliability.probe.proxy); the machine's own servers keep "
            "running "
            "(the compute service reads the database through the same proxy as the app). "
            "Cut: the proxy refuses new connections and resets the established ones. "
            "Stalled: it accepts connections and forwards nothing, as a hung server or a "
            "partition would; only the clients' timeouts end a wait (MariaDB's client counts "
            "whole seconds: the app servers' DB_READ_TIMEOUT 1 s, then DB_CONNECT_TIMEOUT "
            "1 s, so the requests in flight wait up to 2 s while the database breaker "
            "answers the rest at once; the compute client's are 0.2 s and 0.7 s). "
            "The Redis endpoint's answer is kept by each worker once the cache served it, so "
            "the load shows the outage costs nothing; the spot request asks for a key no one "
            "cached (a cold get_pmi), which must be computed without the cache. k6: `"
            + " ".join(command)
            + "`.",
            *tables,
        ]
    )


def write_dependencies(project_dir: Path) -> Path:
    probes, tables, command = probe_dependencies(project_dir)
    return write_section(
        project_dir,
        "dependencies",
        "Dependency outages: the entry editor's database, Redis and compute service",
        "servelab probe dependencies",
        probes,
        dependencies_notes(command, tables),
    )


def write_disk_full(project_dir: Path) -> Path:
    return write_section(
        project_dir,
        "disk-full",
        "Disk full: the files service's storage on a small tmpfs",
        "servelab probe disk-full",
        probe_disk_full(project_dir),
        f"The storage volume is a {TMPFS_SIZE} tmpfs mounted by the probe (root) and "
        "unmounted afterwards; uploads of 1 MiB alternate raw and multipart bodies until four "
        "are refused; then every stored file is downloaded and compared by SHA-256, two are "
        "deleted and one raw and one multipart upload must be accepted again.",
    )


def write_aborts(project_dir: Path) -> Path:
    return write_section(
        project_dir,
        "aborts",
        "Client aborts: uploads and downloads cut mid-way",
        "servelab probe aborts",
        probe_aborts(project_dir),
        "Each abort is a raw socket that sends the headers and half the body (or reads the "
        "first 64 KiB of a download) and resets the connection (SO_LINGER 0). Files left "
        "are counted in the store's tmp/ and as blobs or sidecars without their pair; file "
        "descriptors are /proc/PID/fd summed over the servers' process groups.",
    )


PROBES: dict[str, Callable[[Path], Path]] = {
    "dependencies": write_dependencies,
    "disk-full": write_disk_full,
    "aborts": write_aborts,
}


def run_probe(project_dir: Path, name: str) -> Path:
    """Run probe `name`, save its section and render docs/results/reliability.md."""
    PROBES[name](project_dir)
    return write_reliability(project_dir)
