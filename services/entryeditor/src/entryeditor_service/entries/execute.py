"""Run a parsed `execute` command against the corpus."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from entryeditor_service.corpus import cached, queries
from entryeditor_service.corpus.patterns import Pattern
from entryeditor_service.entries import querylang


def _freq(pattern: Pattern, limit: int) -> dict[str, Any]:
    return queries.freq(pattern, limit)


def _kwic(pattern: Pattern, window: int, limit: int) -> dict[str, Any]:
    return queries.kwic(pattern, window, limit)


def _collocates(
    pattern: Pattern, window: int, measure: str, min_count: int, limit: int
) -> dict[str, Any]:
    return cached.collocates(pattern, window, min_count, measure, limit)[0]


# Each takes the arguments querylang's spec of that command names, as keywords.
HANDLERS: dict[str, Callable[..., dict[str, Any]]] = {
    "freq": _freq,
    "kwic": _kwic,
    "collocates": _collocates,
}


def execute(text: str, default_word: str) -> dict[str, Any]:
    """Parse and run `text` (querylang.CommandError when it is not a valid command)."""
    command = querylang.parse(text, default_word)
    return {"command": command.name, "result": HANDLERS[command.name](**command.args)}
