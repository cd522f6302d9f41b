"""GET and HEAD /files/{object_id}, answered in plain ASGI ahead of the framework.

A download is little work of its own (a metadata lookup, a stat and a read), and FastAPI's
routing, dependency solving and request and response objects were over a third of what it
cost above the empty app on the same server. Downloads answers it as one of the innermost
service layers (servicekit's `service_app(inner=...)`): behind observation and the gate
(request id, metrics, access log, header limit, auth), with the service's error shape,
recorded under the same route template; every other request goes on to the framework. The
APIRoutes of the path (routes/api.py) stay: they are what the OpenAPI schema describes, and
DELETE and a 405's methods go to theirs.
"""

from collections.abc import Iterable

from starlette.responses import Response

from files_service.deps import find_object
from files_service.settings import Settings
from files_service.store.storage import ObjectStore
from files_service.transfer.downloads import object_answer, preconditions
from servicekit.asgi_types import ASGIApp, Receive, Scope, Send
from servicekit.errors import ApiError
from servicekit.errors.asgi import send_api_error
from servicekit.observe.asgi import RouteTemplate

PATH = "/files/{object_id}"
_PREFIX = "/files/"
_METHODS = frozenset({"GET", "HEAD"})


ROUTE = RouteTemplate(PATH)


async def download(
    method: str,
    headers: Iterable[tuple[bytes, bytes]],
    object_id: str,
    store: ObjectStore,
    settings: Settings,
) -> Response:
    """The object's answer: its bytes or a part of them, a 304, or its headers alone."""
    meta = find_object(store, object_id)
    return await object_answer(
        method,
        preconditions(headers),
        meta,
        store.blob_path(meta),
        chunk_size=settings.chunk_size,
        accel_redirect_prefix=settings.accel_redirect_prefix,
        read_mode=store.read_mode,
    )


class Downloads:
    """ASGI middleware answering GET and HEAD of PATH; the rest goes on to `app`."""

    def __init__(self, app: ASGIApp, *, store: ObjectStore, settings: Settings) -> None:
        self.app = app
        self.store = store
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in _METHODS:
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        object_id = path[len(_PREFIX) :]
        if not path.startswith(_PREFIX) or not object_id or "/" in object_id:
            await self.app(scope, receive, send)
            return
        scope["route"] = ROUTE
        try:
            answer = await download(
                scope["method"], scope["headers"], object_id, self.store, self.settings
            )
        except ApiError as error:
            await send_api_error(send, error)
            return
        await answer(scope, receive, send)
