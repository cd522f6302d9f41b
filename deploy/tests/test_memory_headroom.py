"""Every compose memory limit holds what the committed benchmarks measured for that recipe's
defaults (its settings, its default workers, the write-up's load) with 25% to spare: a
report whose peak outgrows its recipe fails here, before a user's container is killed. The
health-code recipes' limits also hold their idle memory plus the image budget per worker."""

from __future__ import annotations

import tomllib
from pathlib import Path
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


def idle_rss_per_worker(project_root: Path) -> dict[str, float]:
    """Each compose service's idle RSS per worker in MiB, from deploy/k8s/measured-memory.toml
    (measured 8 s after start, summed over its processes: an upper bound)."""
    measured = tomllib.loads((project_root / "deploy/k8s/measured-memory.toml").read_text())
    return {row["compose"]: row["rss_mib"] / row["workers"] for row in measured["measured"]}


def test_health_code_limits_hold_idle_memory_plus_each_workers_image_budget(
    project_root: Path, compose_services: dict[str, Any]
) -> None:
    """IMAGE_BUDGET_BYTES bounds the images each worker decodes at once: its idle memory
    and that budget, per worker, fit the recipe's limit with HEADROOM to spare for the
    engine's own working memory. Raising the budget past the limit fails here."""
    idle = idle_rss_per_worker(project_root)
    checked = []
    for name, spec in compose_services.items():
        env = spec.get("environment") or {}
        limit = spec.get("deploy", {}).get("resources", {}).get("limits", {}).get("memory")
        if "IMAGE_BUDGET_BYTES" not in env or limit is None or name not in idle:
            continue
        workers = int(env.get("WEB_CONCURRENCY") or 1)
        need = workers * (idle[name] + int(env["IMAGE_BUDGET_BYTES"]) / MiB)
        checked.append(name)
        assert int(limit) / MiB >= HEADROOM * need, (
            f"{name}: limit {int(limit) / MiB:.0f} MiB < {HEADROOM} x {need:.0f} MiB "
            f"({workers} x ({idle[name]:.0f} idle + the image budget))"
        )
    assert {"health-code-uvicorn", "health-code-gunicorn"} <= set(checked)
