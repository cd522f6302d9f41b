"""The FastAPI app every FastAPI service starts from, and the dependency that reads its
settings back. Needs the `fastapi` and `metrics` extras.
"""

from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from starlette.middleware import Middleware
from starlette.types import Lifespan

from servicekit.errors.fastapi import install_error_handlers
from servicekit.header_limit import HeaderLimit
from servicekit.observe.asgi import ObserveMiddleware

S = TypeVar("S")


def service_app(
    *,
    title: str,
    summary: str,
    settings: object,
    lifespan: Lifespan[FastAPI],
    middleware: Sequence[Middleware] = (),
    install_errors: Callable[[FastAPI], None] = install_error_handlers,
) -> FastAPI:
    """A FastAPI app with `settings` on app.state, the service's own `middleware` (the first
    innermost), then the header limit and observation outside them (observation outermost:
    it sees every answer), and the error handlers `install_errors` registers."""
    app = FastAPI(title=title, summary=summary, lifespan=lifespan)
    app.state.settings = settings
    for layer in middleware:
        app.add_middleware(layer.cls, *layer.args, **layer.kwargs)
    app.add_middleware(HeaderLimit)
    app.add_middleware(ObserveMiddleware)
    install_errors(app)
    return app


def settings_dependency(kind: type[S]) -> Callable[[Request], Coroutine[Any, Any, S]]:
    """A dependency giving the settings the app was built with, typed as `kind`: async, so
    resolving it takes no thread-pool thread (a `def` dependency would)."""

    async def app_settings(request: Request) -> S:
        settings: S = request.app.state.settings
        return settings

    return app_settings
