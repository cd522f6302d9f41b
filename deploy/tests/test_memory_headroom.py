"""Every compose memory limit holds what the committed benchmarks measured for that recipe's
defaults (its settings, its default workers, the write-up's load) with 25% to spare: a
report whose peak outgrows its recipe fails here, before a user's container is killed."""

from __future__ import annotations

from typing import Any

MiB = 1024 * 1024
# A recipe's memory covers the peak its defaults reached under the write-up's load by this.
HEADROOM = 1.25


def test_compose_memory_limits_hold_the_measured_peak_with_headroom(
    compose_services: dict[str, Any], benchmark_peaks: dict[tuple[str, int], tuple[float, str]]
) -> None:
    checked = []
    for name, spec in compose_services.items():
        limit = spec.get("deploy", {}).get("resources", {}).get("limits", {}).get("memory")
        workers = int((spec.get("environment") or {}).get("WEB_CONCURRENCY") or 1)
        if limit is None or (name, workers) not in benchmark_peaks:
            continue
        peak, where = benchmark_peaks[name, workers]
        checked.append(name)
        assert int(limit) / MiB >= HEADROOM * peak, (
            f"{name}: limit {int(limit) / MiB:.0f} MiB < {HEADROOM} x {peak:.0f} MiB ({where})"
        )
    assert {"health-code-uvicorn", "health-code-gunicorn", "files-uvicorn"} <= set(checked)
