"""A stage profile in a report: where one request's CPU time goes, stage by stage, from the
JSON a family's profile command writes (`health-code-profile --out FILE`): its command,
machine and one row per stage with the CPU milliseconds' median and range over the requests.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from servelab.bench.errors import BenchError
from servelab.markdown import table

# The rows that sum others: printed in bold.
_SUMS = ("around the networks", "request")


def read_profile(path: Path) -> dict[str, Any]:
    """The profile saved at `path`; BenchError where it is not one."""
    try:
        record = json.loads(path.read_text())
        record["stages"][0]["cpu_ms"]["median"]
    except (OSError, ValueError, KeyError, IndexError, TypeError) as error:
        raise BenchError(f"{path}: not a stage profile ({error})") from error
    if not isinstance(record, dict):
        raise BenchError(f"{path}: not a stage profile")
    return record


def _ms(value: float) -> str:
    return f"{value:,.1f}"


def profile_table(record: Mapping[str, Any]) -> list[str]:
    """The profile's rows: CPU ms median, range and share of the request, wall ms median."""
    rows = record["stages"]
    total = next((r["cpu_ms"]["median"] for r in rows if r["stage"] == "request"), 0.0)
    body = []
    for row in rows:
        cpu, wall = row["cpu_ms"], row["wall_ms"]
        name = f"**{row['stage']}**" if row["stage"] in _SUMS else row["stage"]
        share = f"{cpu['median'] / total:.0%}" if total else "—"
        span = f"{_ms(cpu['min'])} – {_ms(cpu['max'])}"
        body.append([name, _ms(cpu["median"]), span, share, _ms(wall["median"])])
    header = ["stage", "CPU ms (median)", "range", "share", "wall ms (median)"]
    return table(header, body)


def profiles_table(profiles: Sequence[tuple[str, Sequence[Mapping[str, Any]]]]) -> list[str]:
    """Several profiles' rows side by side (a name and its rows each): each one's CPU ms,
    median and range, and wall ms, median."""
    names = list(dict.fromkeys(row["stage"] for _, rows in profiles for row in rows))
    body = []
    for stage in names:
        line = [f"**{stage}**" if stage in _SUMS else stage]
        for _, rows in profiles:
            row = next((r for r in rows if r["stage"] == stage), None)
            if row is None:
                line += ["—", "—"]
                continue
            cpu = row["cpu_ms"]
            line.append(f"{_ms(cpu['median'])} ({_ms(cpu['min'])} – {_ms(cpu['max'])})")
            line.append(_ms(row["wall_ms"]["median"]))
        body.append(line)
    header = ["stage"]
    for name, _ in profiles:
        header += [f"{name}: CPU ms (range)", "wall ms"]
    return table(header, body)


def describe(record: Mapping[str, Any]) -> str:
    """What was measured: the command, engine and device, machine and requests."""
    machine = record.get("machine", {})
    images = len(record.get("images", []))
    return (
        f"`{record.get('command', '?')}` ({record.get('started', '?')}): engine "
        f"{record.get('engine', '?')} on {record.get('device', '?')}, "
        f"{machine.get('cpus', '?')} CPUs ({machine.get('cpu_model', '?')}), {images} image(s) "
        f"x {record.get('repeat', '?')} requests, {record.get('body', '?')} body."
    )


INTRO = (
    "One request at a time through the service's app in one process (one engine thread, "
    "ANALYZE_MODE=threadpool), each request's CPU time (every thread of the process) split "
    "into the reading's stages; the HTTP layer is the rest (middlewares, reading and "
    "judging the body, base64, the JSON answer). *Around the networks* is the request less "
    "detection and recognition: the CPU work a GPU does not take over. CPU time rather than "
    "wall time, so that a machine shared with other work gives the same figures; the range "
    "is the fastest and the slowest request."
)


def profile_section(path: Path) -> list[str]:
    """The report's section for the profile at `path`; none where there is no file."""
    if not path.is_file():
        return []
    record = read_profile(path)
    return [
        "## Where a request's CPU time goes",
        "",
        INTRO,
        "",
        describe(record),
        "",
        *profile_table(record),
    ]
