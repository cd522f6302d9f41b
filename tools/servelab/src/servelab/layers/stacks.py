"""The shipped app with its layers added one at a time, over the bare framework app.

A service app built by servicekit (`install_service_layers`) has three middlewares,
outermost first: observation (request id, metrics, access log), the gate (header limits,
auth, body limit) and HEAD answered as GET; inside them the service's own plain-ASGI
routes, and the error handlers. Each step here is a shallow twin of the shipped app (the
same routes and state) with a longer prefix of those layers, built as the shipped one is;
the last step is the app as shipped, every layer on with its default settings.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from starlette.middleware import Middleware

from servelab.layers.drive import ASGIApp


@dataclass(frozen=True)
class Step:
    """One configuration: `name` says what it adds to the step before it."""

    name: str
    app: ASGIApp


class NotLayered(RuntimeError):
    """The app's middlewares are not servicekit's, in servicekit's order."""


def steps(shipped: FastAPI) -> list[Step]:
    """The bare app (FastAPI's own error handlers, the service's plain-ASGI routes), then each
    layer of `shipped` added over the step before, inside out, as shipped."""
    from servicekit.gate import RequestGate
    from servicekit.head import HeadAsGet
    from servicekit.observe.asgi import ObserveMiddleware
    from servicekit.observe.settings import ObserveSettings

    layers: list[object] = [middleware.cls for middleware in shipped.user_middleware[:3]]
    if layers != [ObserveMiddleware, RequestGate, HeadAsGet]:
        raise NotLayered(f"expected servicekit's three layers outermost, found {layers}")
    gate: dict[str, Any] = dict(shipped.user_middleware[1].kwargs)
    inner = shipped.user_middleware[3:]
    handlers = _framework_handlers()
    found = [Step("bare app (FastAPI's own error handlers)", _twin(shipped, inner, handlers))]
    handlers = dict(shipped.exception_handlers)
    found.append(Step("+ error handlers", _twin(shipped, inner, handlers)))
    inner = [Middleware(HeadAsGet), *inner]
    found.append(Step("+ HEAD as GET", _twin(shipped, inner, handlers)))
    gate_steps: list[tuple[str, dict[str, Any]]] = [("+ gate: header limits", {})]
    if gate.get("policy") is not None:
        gate_steps.append(("+ gate: bearer auth", {"policy": gate["policy"]}))
    if gate.get("max_body_size") is not None:
        gate_steps.append(("+ gate: body limit", dict(gate)))
    for name, kwargs in gate_steps:
        layered = [Middleware(RequestGate, **kwargs), *inner]
        found.append(Step(name, _twin(shipped, layered, handlers)))
    inner = [Middleware(RequestGate, **gate), *inner]
    observe_steps = (
        ("+ request id", ObserveSettings(access_log=False, metrics=False)),
        ("+ metrics", ObserveSettings(access_log=False)),
        ("+ access log (as shipped)", ObserveSettings()),
    )
    for name, settings in observe_steps:
        layered = [Middleware(ObserveMiddleware, settings=settings), *inner]
        found.append(Step(name, _twin(shipped, layered, handlers)))
    return found


def _twin(shipped: FastAPI, middleware: Sequence[Middleware], handlers: dict[Any, Any]) -> FastAPI:
    """`shipped` with these middlewares and error handlers: its own routes, state, settings."""
    twin = copy.copy(shipped)
    twin.user_middleware = list(middleware)
    twin.exception_handlers = dict(handlers)
    twin.middleware_stack = None
    return twin


def _framework_handlers() -> dict[Any, Any]:
    """The error handlers a FastAPI app starts with."""
    return dict(FastAPI().exception_handlers)
