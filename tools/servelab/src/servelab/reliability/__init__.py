"""docs/results/reliability.md: what every probe of the reliability suite tried, and saw.

Each probe class (`servelab fuzz`, `servelab outage`, the shutdown and rolling-restart
drills, the soak) writes its section as rows of one shape, `Probe`, to
docs/results/reliability/<section>.json with `write_section`; `render_reliability` joins
every saved section into docs/results/reliability.md, so a section re-run alone leaves the
others as they were measured.
"""

from __future__ import annotations

from servelab.reliability.report import render_reliability, write_reliability
from servelab.reliability.rows import Probe, Section, Verdict, load_sections, write_section

__all__ = [
    "Probe",
    "Section",
    "Verdict",
    "load_sections",
    "render_reliability",
    "write_reliability",
    "write_section",
]
