"""The OpenAPI schema (drf-spectacular) at /api/schema/: what a client generator or an API
fuzzer (schemathesis) reads, as the FastAPI services publish theirs at /openapi.json.

Each view declares its bodies, parameters and answers with `extend_schema`; this module
holds what they share: the error shape, the answers every operation may get, and the bearer
token every write needs (servicekit.django.BearerAuthMiddleware).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# The security scheme settings.SPECTACULAR_SETTINGS declares.
BEARER = "bearerAuth"

_MEANINGS = {
    400: "The request is invalid (`fields` names each bad field).",
    401: "No bearer token, or a wrong one (WWW-Authenticate: Bearer).",
    403: "This server has no API token configured: writes are closed.",
    404: "No such entry or sentence.",
    409: "The entry changed since the version the write was based on.",
    413: "The body is larger than MAX_BODY_SIZE.",
    415: "The body is not application/json.",
    503: "A dependency (database, compute) is unavailable; see Retry-After.",
}


class ErrorDetail(serializers.Serializer[dict[str, Any]]):
    code = serializers.CharField(help_text="Stable, snake case: for programs.")
    message = serializers.CharField(help_text="For people.")


class ErrorBody(serializers.Serializer[dict[str, Any]]):
    error = ErrorDetail()


def errors(*statuses: int) -> dict[int, OpenApiResponse]:
    """The error answers an operation may give, in the one error shape."""
    return {
        status: OpenApiResponse(ErrorBody, description=_MEANINGS[status]) for status in statuses
    }


# What any read may answer, and what any write may answer besides its own.
READ_ERRORS = errors(400, 503)
WRITE_ERRORS = errors(400, 401, 403, 413, 415, 503)


def id_parameter(name: str, description: str) -> OpenApiParameter:
    return OpenApiParameter(name, int, OpenApiParameter.PATH, description=description)


class Schema(AutoSchema):
    """Writes need the bearer token; reads need none (unless API_AUTH_READS, which the
    schema does not follow: it describes the default)."""

    def get_auth(self) -> list[dict[str, list[str]]]:
        return [{BEARER: []}] if self.method in WRITE_METHODS else []


def patch_names_its_version(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    """A PATCH names the version it was based on (a 400 without it, a 409 when stale), but
    drf-spectacular's Patched* bodies make every field optional: require `version` again."""
    for name, schema in result.get("components", {}).get("schemas", {}).items():
        if name.startswith("Patched") and "version" in schema.get("properties", {}):
            schema["required"] = sorted({*schema.get("required", []), "version"})
    return result
