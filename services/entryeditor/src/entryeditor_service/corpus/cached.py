"""Collocate lists through the single-flight cache (they are the expensive queries)."""

from __future__ import annotations

import hashlib
from typing import Any

from entryeditor_service import cache
from entryeditor_service.corpus import queries
from entryeditor_service.corpus.patterns import Pattern


def collocates(
    pattern: Pattern, window: int, min_count: int, measure: str, limit: int
) -> tuple[dict[str, Any], cache.Outcome]:
    """queries.collocates, cached per corpus load; (result, how the cache served it)."""
    spec = f"{pattern}|{window}|{min_count}|{measure}|{limit}"
    digest = hashlib.sha256(spec.encode()).hexdigest()[:32]
    key = f"collocates:{queries.info().generation}:{digest}"
    return cache.get_or_compute(
        key, lambda: queries.collocates(pattern, window, min_count, measure, limit)
    )
