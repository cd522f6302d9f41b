"""Observe a Django app: wrap the WSGI application in servicekit.observe.wsgi's middleware
and add `servicekit.observe.django.RouteMiddleware` to MIDDLEWARE, which records the
resolver's route of each request: a path() pattern as written ("/api/entries/<int:pk>/"),
a re_path() regex without its anchors ("/entries/(?P<entry_id>[1-9][0-9]{0,8})/?")."""

import re
from collections.abc import Callable
from typing import Any

from servicekit.observe.wsgi import ROUTE

# The ^ that starts a re_path() regex, alone or joined after an include()'s prefix.
_ANCHORS = re.compile(r"(?:^|(?<=/))\^")


class RouteMiddleware:
    def __init__(self, get_response: Callable[[Any], Any]) -> None:
        self.get_response = get_response

    def __call__(self, request: Any) -> Any:
        return self.get_response(request)

    def process_view(self, request: Any, view: object, args: object, kwargs: object) -> None:
        match = request.resolver_match
        if match is not None:
            request.META[ROUTE] = "/" + _ANCHORS.sub("", match.route).removesuffix("$")
