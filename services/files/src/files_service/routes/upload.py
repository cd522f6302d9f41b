"""POST /files, answered in plain ASGI ahead of the framework, as downloads are
(routes/download.py).

FastAPI's routing, its request wrapper and the query parameter's validation cost an
upload about a sixth of its CPU beside the server's own work. Uploads answers it as one of
the innermost service layers, behind observation and the gate (so the body limit and the
bearer policy still stand in front), with the service's error shape and the APIRoute's
answers: 201 with the object and its Location, a `filename` over 1024 characters a 422,
a full disk a 507, a client gone a 499. The APIRoute (routes/api.py) stays for the OpenAPI
schema.
"""

from urllib.parse import parse_qsl

from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse

from files_service.errors import disk_full
from files_service.store.storage import ObjectStore
from files_service.transfer.uploads import MAX_FILENAME_PARAMETER, receive_object
from servicekit.asgi_types import ASGIApp, Receive, Scope, Send
from servicekit.errors import ApiError
from servicekit.errors.asgi import send_api_error, send_client_closed
from servicekit.observe.asgi import RouteTemplate

PATH = "/files"


ROUTE = RouteTemplate(PATH)


async def store_upload(request: Request, store: ObjectStore, filename: str | None) -> JSONResponse:
    """Store the request's file and answer 201 with its metadata and Location."""
    meta = await receive_object(request, store, filename=filename)
    return JSONResponse(meta.to_json(), status_code=201, headers={"Location": f"/files/{meta.id}"})


class Uploads:
    """ASGI middleware answering POST PATH; the rest goes on to `app`."""

    def __init__(self, app: ASGIApp, *, store: ObjectStore) -> None:
        self.app = app
        self.store = store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != PATH:
            await self.app(scope, receive, send)
            return
        scope["route"] = ROUTE
        try:
            answer = await store_upload(
                Request(scope, receive), self.store, _filename(scope["query_string"])
            )
        except ApiError as error:
            await send_api_error(send, error)
            return
        except ClientDisconnect:
            await send_client_closed(send)
            return
        except OSError as exc:
            full = disk_full(exc)
            if full is None:
                raise
            await send_api_error(send, full)
            return
        await answer(scope, receive, send)


def _filename(query_string: bytes) -> str | None:
    """The `filename` query parameter (the last, as FastAPI reads it), or a 422 as FastAPI's
    validation answers one over MAX_FILENAME_PARAMETER characters."""
    values = [
        value
        for name, value in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True)
        if name == "filename"
    ]
    if not values:
        return None
    value = values[-1]
    if len(value) > MAX_FILENAME_PARAMETER:
        message = f"String should have at most {MAX_FILENAME_PARAMETER} characters"
        raise ApiError(
            422,
            "validation_error",
            f"query.filename: {message}",
            members={
                "details": [
                    {"loc": ["query", "filename"], "msg": message, "type": "string_too_long"}
                ]
            },
        )
    return value
