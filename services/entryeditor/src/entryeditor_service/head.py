"""HEAD answered as GET on every route, without the body.

DRF's api_view answers only the methods it lists (and OPTIONS), so a HEAD to a GET route
would be a 405: `api_view` here is DRF's with HEAD added wherever GET is listed, the way
Django's class views and DRF's viewsets answer it. The view runs as for GET (request.method
is still "HEAD": a view that tells reads from writes asks `request.method in SAFE_METHODS`).
gunicorn drops a HEAD answer's body but uWSGI sends it, so HeadMiddleware drops it in the app,
keeping the Content-Length that GET would send.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.http import HttpRequest, HttpResponse
from rest_framework.decorators import api_view as drf_api_view


def api_view(methods: Sequence[str]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    return drf_api_view([*methods, "HEAD"] if "GET" in methods else list(methods))


class HeadMiddleware:
    """The answer to HEAD with GET's headers and no body (outermost: after CommonMiddleware
    has set Content-Length)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if request.method == "HEAD" and not response.streaming:
            response.headers.setdefault("Content-Length", str(len(response.content)))
            response.content = b""
        return response
