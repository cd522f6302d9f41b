"""One helper for every route: the pattern matches with and without a trailing slash."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.urls import URLPattern, re_path


def route(pattern: str, view: Callable[..., Any], name: str) -> URLPattern:
    return re_path(rf"^{pattern}/?$", view, name=name)
