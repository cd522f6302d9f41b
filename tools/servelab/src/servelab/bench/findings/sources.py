"""The saved runs each family's findings are read from: in a results folder, the quick
run `<family>.json` and the full run `<family>.full.json`, where they exist, and the run on
a machine with a GPU, `<family>.gpu.json`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from servelab.bench.device.results import DeviceRun, load_device_run
from servelab.bench.report.results import BenchRun, load_run

# The forms a findings page reads, in the order it names them.
STEMS = ("{family}", "{family}.full")


@dataclass(frozen=True)
class Saved:
    path: Path
    run: BenchRun


def saved_runs(results: Path, family: str) -> list[Saved]:
    found = []
    for stem in STEMS:
        path = results / f"{stem.format(family=family)}.json"
        if path.is_file():
            found.append(Saved(path, load_run(path)))
    return found


@dataclass(frozen=True)
class SavedDevice:
    path: Path
    run: DeviceRun


def saved_device_run(results: Path, family: str) -> SavedDevice | None:
    path = results / f"{family}.gpu.json"
    return SavedDevice(path, load_device_run(path)) if path.is_file() else None
