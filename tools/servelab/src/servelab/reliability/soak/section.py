"""The soak's section of docs/results/reliability.md: its rows, and its samples as a table
under a note saying how it ran."""

from __future__ import annotations

from dataclasses import astuple
from pathlib import Path

from servelab.markdown import table
from servelab.project import Project
from servelab.reliability.report import write_reliability
from servelab.reliability.rows import write_section
from servelab.reliability.soak.run import FORMS, WARMUP_SHARE, run_soak

SAMPLES = "s,RSS MiB,fds (not sockets),sockets,in CLOSE_WAIT,DB connections,temp files"


def write_soak(project: Project, family: str, form: str = "quick", rate: int | None = None) -> Path:
    """Soak `family` in `form`, save its section and render docs/results/reliability.md."""
    duration_s, interval_s = FORMS[form]
    soaked = run_soak(project, family, duration_s, interval_s, rate)
    rows = [[f"{s.at_s:g}", f"{s.rss_mib:g}", *astuple(s)[2:]] for s in soaked.samples]
    capacity = (
        f"half the {soaked.capacity:.0f} requests/s measured by {soaked.capacity_from}"
        if soaked.capacity and rate is None
        else "the rate given"
    )
    notes = "\n\n".join(
        [
            f"{soaked.rate} requests/s ({capacity}) for {duration_s:g} s, sampled every "
            f"{interval_s:g} s; the first {WARMUP_SHARE:.0%} of the samples are the warm-up, "
            "then the median of the last third is compared with that of the first. RSS and "
            "descriptors are summed over every process of the sampled services' process "
            "groups. Sockets are counted apart: their number follows the connections k6 opens "
            "(more when answers slow down); a leaked one stays in CLOSE_WAIT once its client "
            "has gone. DB connections are the scratch database's rows in MariaDB's "
            "PROCESSLIST; temp files are every file under the stack's tmp directories (the "
            "Prometheus multiprocess files among them) and the files store's tmp/. k6: `"
            + " ".join(soaked.command)
            + "`.",
            "\n".join(table(SAMPLES.split(","), rows)).rstrip(),
        ]
    )
    write_section(
        project,
        f"soak-{family}",
        f"Soak: {family} at half capacity",
        f"servelab soak {family} --{form}",
        soaked.probes,
        notes,
    )
    return write_reliability(project)
