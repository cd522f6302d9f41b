"""docs/results/reliability.md: what every probe of the reliability suite tried, and saw.

Each probe class (`servelab fuzz`, `servelab outage`, `servelab probe`, the soak) writes its
section as report rows of one shape, `rows.Row`, to docs/results/reliability/<section>.json
with `rows.write_section`; `report.render_reliability` joins every saved section into
docs/results/reliability.md, so a section re-run alone leaves the others as they were
measured.
"""
