"""Every error is JSON: {"error": {"code": "...", "message": "...", ...details}}."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, JsonResponse
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

JSON_DUMPS = {"ensure_ascii": False}
RETRY_AFTER = "1"  # seconds, on 503 database_unavailable
log = logging.getLogger(__name__)


def error_body(code: str, message: str, **details: Any) -> dict[str, Any]:
    return {"error": {"code": code, "message": message, **details}}


def error_response(status_code: int, code: str, message: str, **details: Any) -> Response:
    return Response(error_body(code, message, **details), status=status_code)


class ApiError(exceptions.APIException):
    """An error with its own code and details, raised from views and the logic they call."""

    def __init__(self, status_code: int, code: str, message: str, **details: Any) -> None:
        super().__init__(message, code)
        self.status_code = status_code
        self.error_code = code
        self.details = details


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, reshaped: ValidationError -> 400 invalid + fields; the rest keep
    their status with a code named after the exception. A body over MAX_BODY_SIZE is a
    413; a database that does not answer (or has no connection left) a 503, not a 500."""
    if isinstance(exc, OperationalError | InterfaceError):
        log.warning("database unavailable: %s", exc)
        response = error_response(503, "database_unavailable", "The database is unavailable")
        response["Retry-After"] = RETRY_AFTER
        return response
    if isinstance(exc, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return error_response(413, "body_too_large", f"The body is over {limit} bytes")
    if isinstance(exc, ApiError):
        return error_response(exc.status_code, exc.error_code, str(exc.detail), **exc.details)
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


def not_found(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    body = error_body("not_found", f"No route for {request.path}")
    return JsonResponse(body, status=status.HTTP_404_NOT_FOUND, json_dumps_params=JSON_DUMPS)


def server_error(request: HttpRequest) -> JsonResponse:
    body = error_body("server_error", "Internal server error")
    return JsonResponse(body, status=500, json_dumps_params=JSON_DUMPS)


def bad_request(request: HttpRequest, exception: Exception | None = None) -> JsonResponse:
    body = error_body("bad_request", "Bad request")
    return JsonResponse(body, status=400, json_dumps_params=JSON_DUMPS)
