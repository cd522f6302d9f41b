"""GET and HEAD /files/{object_id} on a plain Starlette route, matched before FastAPI's.

A download is little work of its own (a metadata lookup, a stat and a read), and FastAPI's
routing and dependency solving were a fifth of its CPU. DownloadRoute answers it with
Starlette's routing alone, inside the same middleware (observation, the gate, HEAD as GET)
and with the same error handlers. The APIRoutes of the path (routes/api.py) stay: they are
what the OpenAPI schema describes (FastAPI lists only its own routes), and DELETE goes to
theirs. Another method matches this route only in part, so the router goes on to them, and
a 405 names every method of the path.
"""

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route
from starlette.types import Scope

from files_service.deps import find_object, settings_of, store_of
from files_service.transfer.downloads import object_response

PATH = "/files/{object_id}"


async def download(request: Request, object_id: str) -> Response:
    """The object's answer: its bytes or a part of them, a 304, or its headers alone."""
    store, settings = store_of(request), settings_of(request)
    meta = find_object(store, object_id)
    return await object_response(
        request,
        meta,
        store.blob_path(meta),
        chunk_size=settings.chunk_size,
        accel_redirect_prefix=settings.accel_redirect_prefix,
        read_mode=store.read_mode,
    )


async def _endpoint(request: Request) -> Response:
    object_id: str = request.path_params["object_id"]
    return await download(request, object_id)


class DownloadRoute(Route):
    """GET (and with it HEAD) of PATH, recorded as the scope's "route" the way FastAPI's
    APIRoute records itself: FastAPI's router puts no other route there, and the request
    metrics and the access log take the route template from it."""

    def __init__(self) -> None:
        super().__init__(PATH, _endpoint, methods=["GET"], include_in_schema=False)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child_scope = super().matches(scope)
        if match is not Match.NONE:
            child_scope["route"] = self
        return match, child_scope
