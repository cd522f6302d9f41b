"""The OpenAPI schema at /api/schema/: valid OpenAPI 3, and every API route in it with
its methods, bodies, path parameters and error answers (what a fuzzer needs)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.validation import validate_schema

WRITE_METHODS = {"post", "put", "patch", "delete"}


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    response = Client().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


def _routes(
    patterns: list[URLPattern | URLResolver], prefix: str = ""
) -> list[tuple[str, URLPattern]]:
    found = []
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            found += _routes(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            found.append((prefix + str(pattern.pattern), pattern))
    return found


def _schema_path(regex: str) -> str:
    path = regex.replace("^", "").replace("/?$", "/").replace("$", "")
    return "/" + re.sub(r"\(\?P<(\w+)>[^)]*\)", r"{\1}", path)


def test_the_schema_is_valid_openapi(schema: dict[str, Any]) -> None:
    validate_schema(schema)
    assert schema["openapi"].startswith("3.")


def test_every_api_route_and_method_is_in_it(schema: dict[str, Any]) -> None:
    routes = [
        (regex, pattern)
        for regex, pattern in _routes(get_resolver().url_patterns)
        if pattern.name != "schema"
    ]
    assert len(routes) >= 12
    for regex, pattern in routes:
        path = _schema_path(regex)
        assert path in schema["paths"], path
        methods = {
            m for m in ("get", "post", "put", "patch", "delete") if hasattr(pattern.callback.cls, m)
        }  # type: ignore[attr-defined]
        assert methods <= set(schema["paths"][path]), (path, methods)


def test_writes_declare_their_body_the_token_and_their_errors(schema: dict[str, Any]) -> None:
    writes = [
        (path, method, operation)
        for path, operations in schema["paths"].items()
        for method, operation in operations.items()
        if method in WRITE_METHODS
    ]
    assert len(writes) == 5
    for path, method, operation in writes:
        assert "application/json" in operation["requestBody"]["content"], (path, method)
        assert operation["security"] == [{"bearerAuth": []}]
        assert {"400", "401", "403", "413"} <= set(operation["responses"]), (path, method)
    assert "bearerAuth" in schema["components"]["securitySchemes"]


def test_path_parameters_are_integers(schema: dict[str, Any]) -> None:
    operation = schema["paths"]["/entryeditor/entryeditor/{entry_id}/diff/{other_id}/"]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    assert parameters["entry_id"]["schema"]["type"] == "integer"
    assert parameters["other_id"]["in"] == "path"
    pmi = schema["paths"]["/corpus/statistics/get_pmi/"]["get"]
    assert {p["name"] for p in pmi["parameters"]} >= {"word", "window", "min_count", "limit"}


def test_the_schema_says_which_strings_are_taken(schema: dict[str, Any]) -> None:
    """What the API refuses, the schema refuses too, so schema-valid requests are served
    (`servelab fuzz entryeditor` checks both ways): the word's and the POS tag's rules, no
    NUL in any text, a PATCH's version."""
    components = schema["components"]["schemas"]
    word = components["EntryRequest"]["properties"]["word"]
    assert re.fullmatch(word["pattern"], "必须") and not re.fullmatch(word["pattern"], "a b")
    pos = components["EntryRequest"]["properties"]["pos"]["oneOf"][0]["pattern"]
    assert re.fullmatch(pos, "vn") and not re.fullmatch(pos, "0")
    definition = components["SenseRequest"]["properties"]["definition"]["pattern"]
    assert re.fullmatch(definition, "") and not re.fullmatch(definition, "a\x00b")
    assert "version" in components["PatchedEntryUpdateRequest"]["required"]
