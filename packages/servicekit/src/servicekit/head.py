"""HEAD wherever GET is answered, on a FastAPI app. Needs the `fastapi` extra.

FastAPI's routes answer only the methods they list (Starlette's own add HEAD to GET), so
HEAD was a 405 on every GET route. HeadAsGet routes a HEAD that no route lists as the GET
it stands for, and passes on GET's status and headers, Content-Length included, without its
body. uvicorn, gunicorn's UvicornWorker and granian would drop that body themselves; dropped
here, the access log counts the bytes sent, none. A route that lists HEAD answers it itself,
as a download does without opening its file. Only the app below sees GET: the server, and
the middleware outside (observation, auth), see the HEAD.

    app.add_middleware(HeadAsGet)
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadAsGet:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD" or _routes_head(scope):
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return
                message = {"type": "http.response.body", "body": b""}
            await send(message)

        # A scope of its own: the server reads the method in its scope to send no body.
        inner = {**scope, "method": "GET"}
        try:
            await self.app(inner, receive, headers_only)
        finally:
            # What the router recorded (the route) is seen by the middleware outside.
            scope.update((key, value) for key, value in inner.items() if key != "method")


def answers_head_as_get(app: Starlette) -> bool:
    """Whether `app` answers HEAD as GET (HeadAsGet is one of its middlewares): its 405s
    then name HEAD wherever they name GET."""
    classes: set[object] = {middleware.cls for middleware in app.user_middleware}
    return HeadAsGet in classes


def _routes_head(scope: Scope) -> bool:
    """Whether a route of the app lists HEAD at this path, tried as the router matches."""
    app: Starlette = scope["app"]
    return any(route.matches(scope)[0] == Match.FULL for route in app.router.routes)
