"""Benchmark records for the report's tests, as docs/results/<family>.json holds them, and
GPU machine runs as docs/results/health-code.gpu.json holds them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from servelab.bench.device.results import DeviceRun, EvalResult, LoadResult, StackResult
from servelab.bench.measure.machine import Machine

DEBIAN = "Debian GNU/Linux 12 (bookworm)"

# The machine of the sample runs: 2 CPUs, as the write-ups' figures sit beside.
MACHINE = asdict(Machine("AMD EPYC", 2, 23.5, DEBIAN, "6.1.0", "3.11.7", "k6 v1.1.0"))


def run_record(
    family: str, load: Mapping[str, Any], cells: list[dict[str, Any]], **fields: Any
) -> dict[str, Any]:
    """A quick run of `family` with `cells` under `load` on MACHINE; `fields` replace the
    record's other keys (wall_s, load_average, payload_size, k6_command...)."""
    return {
        "family": family,
        "form": "quick",
        "started": "2026-01-01T00:00:00+00:00",
        "wall_s": 60.0,
        "load_average": 0.5,
        "machine": dict(MACHINE),
        "load": dict(load),
        "payload_size": 0,
        "k6_command": "k6 run loadtests/<script>",
        "cells": cells,
        **fields,
    }


# The machine and GPU of the sample device runs.
DEVICE_MACHINE = asdict(Machine("Intel Xeon", 16, 128.0, "Ubuntu", "6.18", "3.12.3", "k6 v1.1.0"))
GPU: dict[str, Any] = {"name": "NVIDIA H100 80GB HBM3", "driver": "580.159.04", "memory_mib": 81559}


def device_stack(
    variant: str, workers: int, gpu: bool, mode: str, rps: tuple[float, float], **more: Any
) -> StackResult:
    """A stack of the device matrix in ANALYZE_MODE `mode` (`env` adds settings), measured
    at `rps` under 20 x 200 and 64 x 1000 with every request answered; `more` replaces the
    other fields."""
    loads = [
        LoadResult(name, clients, requests, requests, 0, 0, r, 100.0, 90.0, 300.0, 1.0, 0.5)
        for (name, clients, requests), r in zip(
            (("c20", 20, 200), ("c64", 64, 1000)), rps, strict=True
        )
    ]
    env = {"ANALYZE_MODE": mode, **more.pop("env", {})}
    fields: dict[str, Any] = {"loads": loads, "start_s": 12.0, "wall_s": 40.0, **more}
    if gpu:
        fields.setdefault("gpu_peak_process_mib", 2500)
        fields.setdefault("gpu_peak_total_mib", 2500 * workers)
    return StackResult(variant, workers, "health-code-gpu", gpu, env, **fields)


def device_run(
    stacks: list[StackResult], evals: Sequence[EvalResult] = (), gpu: bool = True
) -> DeviceRun:
    """A run on DEVICE_MACHINE, with GPU unless `gpu` is false."""
    return DeviceRun(
        title="Health-code on one GPU",
        form="device",
        started="2026-11-27T10:00:00+00:00",
        budget_s=480.0,
        commit="abc123",
        machine=DEVICE_MACHINE,
        gpus=[GPU] if gpu else [],
        no_gpu="" if gpu else "no NVIDIA GPU on this machine (nvidia-smi not found)",
        k6="k6 v1.1.0",
        wall_s=420.0,
        stacks=stacks,
        evals=list(evals),
    )
