"""Read-through cache with single-flight: one computation per cold key, however many ask.

The first request for a missing key takes a lock (`SET NX` with an expiry, through
`cache.add`), computes and stores the value; the others poll the cache until a deadline and
compute it themselves only if it has not appeared by then. When Redis does not answer (short
connect/socket timeouts), requests compute without the cache and skip it for
REDIS_RETRY_AFTER seconds instead of failing.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from enum import StrEnum
from typing import Any, TypeVar

from django.conf import settings
from django.core.cache import cache
from redis.exceptions import RedisError

T = TypeVar("T")
log = logging.getLogger(__name__)

LOCK_TTL = 30  # seconds a computation may hold the lock before another may take it
WAIT = 10.0  # seconds a waiter polls before computing itself
MISSING = object()


class Outcome(StrEnum):
    LOCAL = "local"  # found in this process's copy of what the cache served
    HIT = "hit"  # found in the cache
    MISS = "miss"  # this request computed and stored it
    WAIT = "wait"  # another request computed it while this one waited
    BYPASS = "bypass"  # computed without the cache (cache down, or waited too long)


class _Breaker:
    """Skip the cache for a while after it failed, so an outage costs one timeout."""

    def __init__(self) -> None:
        self._open_until = 0.0
        self._lock = threading.Lock()

    def is_open(self) -> bool:
        return time.monotonic() < self._open_until

    def trip(self, exc: Exception) -> None:
        with self._lock:
            if not self.is_open():
                log.warning("cache unavailable, computing without it: %s", exc)
            self._open_until = time.monotonic() + settings.REDIS_RETRY_AFTER


breaker = _Breaker()


class CacheDown(Exception):
    pass


def _call(operation: Callable[..., Any], *args: Any) -> Any:
    if breaker.is_open():
        raise CacheDown
    try:
        return operation(*args)
    except (RedisError, OSError) as exc:
        breaker.trip(exc)
        raise CacheDown from exc


def _quietly(operation: Callable[..., Any], *args: Any) -> Any:
    try:
        return _call(operation, *args)
    except CacheDown:
        return None


def get_or_compute(
    key: str, compute: Callable[[], T], *, timeout: int | None = None, wait: float = WAIT
) -> tuple[T, Outcome]:
    """The cached value of `key`, computing it at most once across concurrent callers."""
    timeout = settings.CACHE_TIMEOUT if timeout is None else timeout
    lock_key = f"{key}:lock"
    token = uuid.uuid4().hex
    try:
        value = _call(cache.get, key, MISSING)
        if value is not MISSING:
            return value, Outcome.HIT
        if _call(cache.add, lock_key, token, LOCK_TTL):
            try:
                # Stored between our first look and taking the lock? Then it is done.
                value = _call(cache.get, key, MISSING)
                if value is not MISSING:
                    return value, Outcome.HIT
                value = compute()
                _quietly(cache.set, key, value, timeout)
            finally:
                if _quietly(cache.get, lock_key) == token:
                    _quietly(cache.delete, lock_key)
            return value, Outcome.MISS
        deadline = time.monotonic() + wait
        delay = 0.005
        while time.monotonic() < deadline:
            time.sleep(delay)
            delay = min(delay * 1.5, 0.05)
            value = _call(cache.get, key, MISSING)
            if value is not MISSING:
                return value, Outcome.WAIT
    except CacheDown:
        pass
    return compute(), Outcome.BYPASS


def probe() -> dict[str, Any]:
    """Whether the cache answers now (for /readyz); the client's own text goes to the log."""
    backend = "redis" if settings.REDIS_URL else "locmem"
    try:
        cache.get("readyz:probe")
    except (RedisError, OSError) as exc:
        log.warning("cache not answering: %s", exc)
        return {"ok": False, "backend": backend, "error": "The cache does not answer"}
    return {"ok": True, "backend": backend}
