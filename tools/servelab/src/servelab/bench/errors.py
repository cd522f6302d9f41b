"""The one exception the benchmark commands let through: a message for the user."""

from __future__ import annotations


class BenchError(RuntimeError):
    """A benchmark could not run or a report could not be written; the message says why."""
