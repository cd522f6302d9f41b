"""What the recipes' tests share: the memory peaks the committed benchmark reports measured
at each recipe's defaults."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from servelab.stack.compose import config_text

# (compose service, workers) -> (peak summed PSS in MiB, the cell that reached it).
Peaks = dict[tuple[str, int], tuple[float, str]]
# Every profile a report's cells ran.
PROFILES = ["uvicorn", "gunicorn", "granian", "tornado", "uwsgi", "nginx", "reference"]
# Settings a cell may change without leaving its recipe's defaults as far as memory goes:
# the observability switches, and OCR_THREADS=1, which is what health-code's default (0,
# sized to the machine) gives its threadpool mode.
NOT_MEMORY = frozenset({"ACCESS_LOG", "ACCESS_LOG_FLUSH_S", "METRICS", "OCR_THREADS"})


def at_defaults(settings: Mapping[str, str], defaults: Mapping[str, Any]) -> bool:
    """Whether a cell ran its service as the recipe does unless told otherwise."""
    return all(
        str(defaults[key]) == value
        for key, value in settings.items()
        if key in defaults and key not in NOT_MEMORY and key != "WEB_CONCURRENCY"
    )


def report_peaks(results: Path, services: Mapping[str, Any]) -> Peaks:
    """The highest server memory of the single-service cells of every saved run that ran
    their service at its recipe's defaults, by the service and its workers."""
    peaks: Peaks = {}
    for saved in sorted(results.glob("*.json")):
        run = json.loads(saved.read_text())
        if not isinstance(run, dict):
            continue
        for cell in run.get("cells", ()):
            ran = list(cell.get("commands", {}))
            mib = cell.get("server_memory_mib")
            if mib is None or len(ran) != 1 or ran[0] not in services:
                continue
            settings = cell.get("settings", {})
            if not at_defaults(settings, services[ran[0]].get("environment") or {}):
                continue
            key = (ran[0], int(settings.get("WEB_CONCURRENCY") or 1))
            where = f"{saved.name}: {cell['variant']} w{cell['workers']} {cell['endpoint']}"
            if mib > peaks.get(key, (0.0, ""))[0]:
                peaks[key] = (mib, where)
    return peaks


@pytest.fixture(scope="session")
def compose_services(project_root: Path) -> dict[str, Any]:
    """Every service of the profiles the reports ran, resolved with no settings given."""
    text = config_text(project_root, PROFILES, {}, inherit=False)
    services: dict[str, Any] = yaml.safe_load(text)["services"]
    return services


@pytest.fixture(scope="session")
def benchmark_peaks(project_root: Path, compose_services: dict[str, Any]) -> Peaks:
    return report_peaks(project_root / "docs" / "results", compose_services)
