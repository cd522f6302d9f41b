"""Liveness and readiness probes: ready while the storage directory takes writes."""

from fastapi import APIRouter

from files_service.store.storage import ObjectStore
from servicekit.health.fastapi import health_router


def router(store: ObjectStore) -> APIRouter:
    def storage_writable() -> str | None:
        return None if store.is_writable() else "The storage directory is not writable"

    return health_router(check=storage_writable)
