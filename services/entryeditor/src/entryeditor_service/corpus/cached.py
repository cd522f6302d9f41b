"""Collocate lists through the single-flight cache (they are the expensive queries).

A collocate list is a function of its key alone (the key names the corpus load), so each
process also keeps the last LOCAL_ENTRIES lists the cache served it: a warm request then
costs no round trip to Redis. The copies are pickled, so each request gets objects of its
own. What was computed while the cache was skipped (bypass) is not kept, so an outage
looks the same from every process and ends with the cache's own answers.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
from collections import OrderedDict
from typing import Any

from entryeditor_service import cache, metrics
from entryeditor_service.corpus import queries
from entryeditor_service.corpus.patterns import Pattern

LOCAL_ENTRIES = 256

_local: OrderedDict[str, bytes] = OrderedDict()
_local_lock = threading.Lock()


def _recall(key: str) -> dict[str, Any] | None:
    with _local_lock:
        kept = _local.get(key)
        if kept is None:
            return None
        _local.move_to_end(key)
    value: dict[str, Any] = pickle.loads(kept)  # noqa: S301 - bytes this process pickled
    return value


def _keep(key: str, value: dict[str, Any]) -> None:
    kept = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    with _local_lock:
        _local[key] = kept
        _local.move_to_end(key)
        while len(_local) > LOCAL_ENTRIES:
            _local.popitem(last=False)


def forget_local() -> None:
    """Drop this process's copies (tests that need the cache itself to answer)."""
    with _local_lock:
        _local.clear()


def collocates(
    pattern: Pattern, window: int, min_count: int, measure: str, limit: int
) -> tuple[dict[str, Any], cache.Outcome]:
    """queries.collocates, cached per corpus load; (result, how the cache served it)."""
    spec = f"{pattern}|{window}|{min_count}|{measure}|{limit}"
    digest = hashlib.sha256(spec.encode()).hexdigest()[:32]
    key = f"collocates:{queries.info().generation}:{digest}"
    recalled = _recall(key)
    if recalled is not None:
        metrics.cache_lookup(cache.Outcome.LOCAL.value)
        return recalled, cache.Outcome.LOCAL
    value, outcome = cache.get_or_compute(
        key, lambda: queries.collocates(pattern, window, min_count, measure, limit)
    )
    metrics.cache_lookup(outcome.value)
    if outcome is not cache.Outcome.BYPASS:
        _keep(key, value)
    return value, outcome
