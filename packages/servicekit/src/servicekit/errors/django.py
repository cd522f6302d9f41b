"""The error shape on Django: error_response() for middleware and error views.
Needs the `django` extra.
"""

from collections.abc import Mapping
from typing import Any

from django.http import JsonResponse

from servicekit.errors import error_body

# Messages as written: a name with an accent stays readable in the body.
_JSON_DUMPS = {"ensure_ascii": False}


def error_response(
    status: int,
    code: str,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    **members: Any,
) -> JsonResponse:
    return JsonResponse(
        error_body(code, message, **members),
        status=status,
        headers=headers,
        json_dumps_params=_JSON_DUMPS,
    )
