"""Benchmark records for the report's tests, as docs/results/<family>.json holds them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The machine of the sample runs: 2 CPUs, as the write-ups' figures sit beside.
MACHINE: dict[str, Any] = {
    "cpu_model": "AMD EPYC",
    "cpus": 2,
    "memory_gib": 23.5,
    "os": "Debian GNU/Linux 12 (bookworm)",
    "kernel": "6.1.0",
    "python": "3.11.7",
    "k6": "k6 v1.1.0",
}


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
