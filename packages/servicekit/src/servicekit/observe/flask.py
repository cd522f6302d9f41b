"""Observe a Flask app: `install(app)` wraps its WSGI callable in the middleware and
records each request's url_rule ("/objects/<object_id>") as its route. Every server that
imports the app (gunicorn, uWSGI, granian, Tornado's WSGIContainer) then serves it so."""

from flask import Flask, request

from servicekit.observe.settings import ObserveSettings
from servicekit.observe.wsgi import ROUTE, ObserveMiddleware


def _remember_route() -> None:
    if request.url_rule is not None:
        request.environ[ROUTE] = request.url_rule.rule


def install(app: Flask, settings: ObserveSettings | None = None) -> None:
    app.before_request(_remember_route)
    # Flask's own pattern for WSGI middleware: app.__call__ calls app.wsgi_app.
    app.wsgi_app = ObserveMiddleware(app.wsgi_app, settings)  # type: ignore[method-assign]
