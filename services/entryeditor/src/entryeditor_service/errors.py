"""Every error is JSON in servicekit's shape: {"error": {"code": "...", "message": "..."}},
with an error's own members beside them (a conflict's `current_version`, a bad command's
`line` and `column`, a bad request's `fields`).

servicekit's one error type, ApiError(status, code, message), and every handler in this
module: `exception_handler` for DRF (named in config/settings.py) and Django's own error
views (named in config/urls.py). Domain code raises its own errors (an entry not found, a
stale version, a bad command, compute without an answer) and `to_api_error` is the one place
that says which HTTP answer each becomes; views raise ApiError only for what is HTTP's alone.
"""

from __future__ import annotations

import logging
import math
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, JsonResponse
from rest_framework import exceptions
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from compute_contract.computeidl.ttypes import BadRequest, UnknownSentence
from entryeditor_service import database
from entryeditor_service.compute.client import ComputeUnavailable
from entryeditor_service.entries.querylang import CommandError
from entryeditor_service.entries.store import EntryNotFound, VersionConflict
from servicekit.errors import ApiError, error_body
from servicekit.errors.django import error_response

RETRY_AFTER_S = 1  # on 503 database_unavailable
log = logging.getLogger(__name__)


def to_api_error(exc: Exception) -> ApiError | None:
    """The HTTP answer to a domain error or a failing dependency; None for the rest."""
    if isinstance(exc, EntryNotFound):
        return ApiError(404, "not_found", f"No entry {exc.entry_id}")
    if isinstance(exc, VersionConflict):
        message = (
            f"Entry {exc.entry_id} is at version {exc.current}, not {exc.version}: "
            "reload it and apply the change again"
        )
        return ApiError(409, "conflict", message, members={"current_version": exc.current})
    if isinstance(exc, CommandError):
        return ApiError(400, "bad_command", exc.message, members=exc.details())
    if isinstance(exc, UnknownSentence):
        return ApiError(404, "not_found", f"No sentence {exc.sentence_id}")
    if isinstance(exc, BadRequest):
        return ApiError(400, "invalid", exc.message)
    if isinstance(exc, ComputeUnavailable):
        retry_after = max(1, math.ceil(exc.retry_after))
        return ApiError(
            503,
            "compute_unavailable",
            "The compute service is unavailable; try again later.",
            headers={"Retry-After": str(retry_after)},
            members={"retry_after": retry_after},
        )
    if isinstance(exc, OperationalError | InterfaceError):
        # The database does not answer or has no connection left: a 503, not a 500.
        log.warning("database unavailable: %s", exc)
        database.record(exc)
        return ApiError(
            503,
            "database_unavailable",
            "The database is unavailable",
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return ApiError(413, "body_too_large", f"The body is over {limit} bytes")
    return None


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, reshaped: ApiError and the errors to_api_error knows answer as they
    say; ValidationError -> 400 invalid + fields; DRF's other errors keep their status with
    a code named after the exception; anything else is a 500 (Django's handler500)."""
    error = exc if isinstance(exc, ApiError) else to_api_error(exc)
    if error is not None:
        return Response(error.body(), status=error.status, headers=error.headers)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
        response.data = error_body("invalid", "Invalid input.", fields=detail)
    elif isinstance(exc, exceptions.APIException):
        code = exc.default_code if isinstance(exc.detail, str) else "error"
        response.data = error_body(code, str(exc.detail))
    return response


def bad_request(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return error_response(400, "bad_request", "Bad request")


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return error_response(403, "forbidden", "Forbidden")


def not_found(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    return error_response(404, "not_found", f"No route for {request.path}")


def server_error(request: HttpRequest) -> JsonResponse:
    return error_response(500, "server_error", "Internal server error")
