"""Request dependencies: the app's settings and object store, and object lookup."""

from typing import Annotated

from fastapi import Depends, Request

from files_service.settings import Settings
from files_service.storage import ObjectMeta, ObjectStore
from servicekit.errors import ApiError


# `async def`: FastAPI runs a plain `def` dependency in its thread pool, and a thread hop
# per dependency cost more than the rest of a download answered with X-Accel-Redirect.
async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_store(request: Request) -> ObjectStore:
    store: ObjectStore = request.app.state.store
    return store


SettingsDep = Annotated[Settings, Depends(get_settings)]
StoreDep = Annotated[ObjectStore, Depends(get_store)]


def find_object(store: ObjectStore, object_id: str) -> ObjectMeta:
    """The object's metadata, or a 404 for any id that is not one of ours."""
    meta = store.get(object_id)
    if meta is None:
        raise ApiError(404, "not_found", "object not found")
    return meta
