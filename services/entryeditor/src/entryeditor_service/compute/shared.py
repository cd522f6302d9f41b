"""This process's compute client, made on first use from the COMPUTE_* settings.

Made lazily, so that each uWSGI/gunicorn worker opens its own connections after the fork;
made again after a COMPUTE_* setting changes (Django's setting_changed signal).
"""

from __future__ import annotations

import threading

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver

from entryeditor_service.compute.breaker import CircuitBreaker
from entryeditor_service.compute.client import ComputeClient, Endpoint

_lock = threading.Lock()
_client: ComputeClient | None = None


def compute_client() -> ComputeClient:
    global _client
    with _lock:
        if _client is None:
            _client = ComputeClient(
                Endpoint.parse(settings.COMPUTE_ADDR),
                pool_size=settings.COMPUTE_POOL_SIZE,
                connect_timeout_s=settings.COMPUTE_CONNECT_TIMEOUT,
                timeout_s=settings.COMPUTE_TIMEOUT,
                breaker=CircuitBreaker(
                    settings.COMPUTE_BREAKER_FAILURES, settings.COMPUTE_BREAKER_RESET
                ),
            )
        return _client


@receiver(setting_changed)
def _forget_client(*, setting: str, **kwargs: object) -> None:
    global _client
    if setting.startswith("COMPUTE_"):
        with _lock:
            if _client is not None:
                _client.close()
            _client = None
