"""The app's settings and object store, read off the request, and object lookup."""

from fastapi import Request

from files_service.settings import Settings
from files_service.store.storage import ObjectMeta, ObjectStore
from servicekit.errors import ApiError


# Plain functions, not FastAPI dependencies: FastAPI solves a route's dependencies on
# every request, and for two app-wide objects that cost a sixth of a download answered
# with X-Accel-Redirect. A test builds its own app with create_app(settings) instead.
def settings_of(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def store_of(request: Request) -> ObjectStore:
    store: ObjectStore = request.app.state.store
    return store


def find_object(store: ObjectStore, object_id: str) -> ObjectMeta:
    """The object's metadata, or a 404 for any id that is not one of ours."""
    meta = store.get(object_id)
    if meta is None:
        raise ApiError(404, "not_found", "object not found")
    return meta
