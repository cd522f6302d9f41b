"""Progress of a benchmark on stderr: cell i/N, what runs, and the time left."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TextIO


def eta_s(durations: Sequence[float], remaining: int, estimate_s: float | None) -> float | None:
    """Seconds left: the mean time of the cells done so far (or the estimate before any;
    None without one)."""
    per_cell = sum(durations) / len(durations) if durations else estimate_s
    return None if per_cell is None else per_cell * remaining


def clock(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}:{secs:02d}"


class Progress:
    def __init__(self, total: int, estimate_s: float | None, stream: TextIO) -> None:
        self.total = total
        self.estimate_s = estimate_s
        self.stream = stream
        self.durations: list[float] = []
        self._started = time.monotonic()

    def begin(self, index: int, what: str) -> None:
        left = eta_s(self.durations, self.total - index, self.estimate_s)
        eta = "" if left is None else f"  (about {clock(left)} left)"
        self._write(f"[{index + 1}/{self.total}] {what}{eta}")
        self._started = time.monotonic()

    def end(self, outcome: str) -> None:
        self.durations.append(time.monotonic() - self._started)
        self._write(f"    {outcome}")

    def _write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.stream.flush()
