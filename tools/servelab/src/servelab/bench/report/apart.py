"""A figure shown with as many decimals as it takes to tell it from the bound it is judged by."""

from __future__ import annotations

EXTRA_DIGITS = 2


def apart(value: float, bound: float | None, digits: int, *, percent: bool = False) -> str:
    """`value` with `digits` decimals, or up to EXTRA_DIGITS more where those would round it
    onto `bound`: a ratio of 1.104 judged against ≤ 1.1 reads 1.104, not 1.10, beside "not
    met". `percent`: as a signed percentage (0.104 -> +10.4%)."""
    for places in range(digits, digits + EXTRA_DIGITS):
        shown = _shown(value, places, percent=percent)
        if bound is None or value == bound or shown != _shown(bound, places, percent=percent):
            return shown
    return _shown(value, digits + EXTRA_DIGITS, percent=percent)


def _shown(value: float, places: int, *, percent: bool) -> str:
    return f"{value:+.{places}%}" if percent else f"{value:.{places}f}"
