"""BearerAuthMiddleware: servicekit.auth's policy as Django middleware.

Settings: API_TOKEN (the token, None when writes stay closed) and API_AUTH_READS (reads need
it too). It runs before any view and before the body is read, so a refused request costs
no parsing. Needs the `django` extra.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse

from servicekit.auth import BearerPolicy
from servicekit.errors.django import error_response


class BearerAuthMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.policy = BearerPolicy(
            getattr(settings, "API_TOKEN", None), getattr(settings, "API_AUTH_READS", False)
        )

    def __call__(self, request: HttpRequest) -> HttpResponse:
        denial = self.policy.check(
            request.method or "GET", request.path_info, request.headers.get("Authorization")
        )
        if denial is None:
            return self.get_response(request)
        return error_response(denial.status, denial.code, denial.message, headers=denial.headers)
