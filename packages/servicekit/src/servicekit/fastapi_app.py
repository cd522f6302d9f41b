"""The FastAPI app every FastAPI service starts from, and the dependency that reads its
settings back. Needs the `fastapi` and `metrics` extras.
"""

from collections.abc import Callable, Coroutine, Sequence
from typing import Any, TypeVar

from fastapi import FastAPI, Request
from fastapi.telemetry import TelemetryConfig
from starlette.middleware import Middleware
from starlette.types import Lifespan

from servicekit.auth import BearerPolicy
from servicekit.docs import install_docs
from servicekit.errors.fastapi import install_error_handlers
from servicekit.gate import RequestGate
from servicekit.head import HeadAsGet
from servicekit.observe.asgi import ObserveMiddleware

S = TypeVar("S")

# FastAPI's own OpenTelemetry, off: servicekit.tracing records each request's server span
# (with a provider of its own per process, never the global one), and FastAPI's asked the
# OpenTelemetry API for its three global providers on every request, 6 µs each time.
NO_FASTAPI_TELEMETRY: TelemetryConfig = {"tracing": False, "metrics": False, "logs": False}


def service_app(
    *,
    title: str,
    summary: str,
    settings: object,
    lifespan: Lifespan[FastAPI],
    auth: BearerPolicy | None = None,
    max_body_size: int | None = None,
    install_errors: Callable[[FastAPI], None] = install_error_handlers,
    inner: Sequence[Middleware] = (),
) -> FastAPI:
    """A FastAPI app (its own telemetry off) with `settings` on app.state, its docs served
    from the service itself (servicekit.docs: no CDN), and the layers install_service_layers
    adds."""
    app = FastAPI(
        title=title,
        summary=summary,
        lifespan=lifespan,
        telemetry=NO_FASTAPI_TELEMETRY,
        docs_url=None,
        redoc_url=None,
    )
    app.state.settings = settings
    install_docs(app)
    install_service_layers(
        app, auth=auth, max_body_size=max_body_size, install_errors=install_errors, inner=inner
    )
    return app


def install_service_layers(
    app: FastAPI,
    *,
    auth: BearerPolicy | None = None,
    max_body_size: int | None = None,
    install_errors: Callable[[FastAPI], None] = install_error_handlers,
    inner: Sequence[Middleware] = (),
) -> None:
    """What every FastAPI service answers through: three middlewares, observation outermost
    (it sees every answer, refusals included), then the gate's header limit, the `auth`
    policy and the `max_body_size` limit in one pass (servicekit.gate), then HEAD answered
    as GET wherever GET is (servicekit.head); and the error handlers `install_errors`
    registers. `inner` are the app's own plain-ASGI middlewares, first outermost, inside
    those three: routes answered without the framework's routing, behind every layer."""
    for middleware in reversed(inner):
        app.add_middleware(middleware.cls, *middleware.args, **middleware.kwargs)
    app.add_middleware(HeadAsGet)
    app.add_middleware(RequestGate, policy=auth, max_body_size=max_body_size)
    app.add_middleware(ObserveMiddleware)
    install_errors(app)


def settings_dependency(kind: type[S]) -> Callable[[Request], Coroutine[Any, Any, S]]:
    """A dependency giving the settings the app was built with, typed as `kind`: async, so
    resolving it takes no thread-pool thread (a `def` dependency would)."""

    async def app_settings(request: Request) -> S:
        settings: S = request.app.state.settings
        return settings

    return app_settings
