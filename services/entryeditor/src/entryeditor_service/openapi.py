"""The OpenAPI schema (drf-spectacular) at /api/schema/: what a client generator or an API
fuzzer (schemathesis) reads, as the FastAPI services publish theirs at /openapi.json.

Each view declares its bodies, parameters and answers with `extend_schema`; this module
holds what they share: the error shape, the answers every operation may get, and the bearer
token every write needs (servicekit.auth.django.BearerAuthMiddleware).
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


# A string DRF's CharField takes: no NUL anywhere (ProhibitNullCharactersValidator) and, once
# trimmed (str.strip(): ECMA-262's \s, and \x1c-\x1f and \x85 as well), not blank.
_NO_NUL = r"^[^\x00]*$"
_NOT_BLANK = r"^[^\x00]*[^\s\x00\x1c-\x1f\x85][^\x00]*$"


def strings_as_drf_takes_them(result: dict[str, Any], **_: Any) -> dict[str, Any]:
    """Request bodies' strings with the rules DRF's CharField applies beyond a length: a
    string property with no pattern or format of its own gets one, so a schema-valid string
    is one the API takes (fields with rules of their own, the word and the POS tag, have
    their patterns already)."""
    for name, schema in result.get("components", {}).get("schemas", {}).items():
        if name.endswith("Request"):
            for prop in _string_properties(schema):
                blank = prop.get("minLength", 0) == 0
                prop["pattern"] = _NO_NUL if blank else _NOT_BLANK
    return result


def _string_properties(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """Every plain string schema among `schema`'s properties, nested objects and arrays."""
    if schema.get("type") == "string":
        plain = "pattern" not in schema and "format" not in schema and "enum" not in schema
        return [schema] if plain else []
    found: list[dict[str, Any]] = []
    for prop in schema.get("properties", {}).values():
        found += _string_properties(prop)
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            found += _string_properties(schema[key])
    for alternative in schema.get("oneOf", []) + schema.get("allOf", []):
        found += _string_properties(alternative)
    return found
