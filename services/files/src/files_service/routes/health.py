"""Liveness and readiness probes: ready while the storage directory takes writes."""

from fastapi import APIRouter

from files_service.store.storage import ObjectStore
from servicekit.errors import ApiError
from servicekit.health.fastapi import health_router


def router(store: ObjectStore) -> APIRouter:
    def storage_writable() -> None:
        if not store.is_writable():
            raise ApiError(503, "storage_unavailable", "storage directory is not writable")

    return health_router(check=storage_writable)
