"""The nearest-rank percentile of a list of figures, as the reliability reports quote them."""

from __future__ import annotations

from collections.abc import Iterable


def percentile(values: Iterable[float], q: float) -> float:
    """The value at rank `q` (0.99 for the 99th percentile) of the sorted values, nearest
    rank, no interpolation; 0 for none."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0
