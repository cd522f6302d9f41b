"""JSON bodies nested past the parser's bound: a 400 in the error shape on every JSON
endpoint, never a 500 RecursionError."""

from __future__ import annotations

import pytest
from django.test import Client

from entryeditor_service.parsers import MAX_DEPTH, depth

BODIES = {
    "arrays-1000": "[" * 1000 + "]" * 1000,
    "arrays-100000": "[" * 100_000 + "]" * 100_000,
    "objects-1000": '{"a":' * 1000 + "1" + "}" * 1000,
}
ENDPOINTS = [
    ("post", "/entryeditor/entryeditor/"),
    ("patch", "/entryeditor/entryeditor/1"),
    ("post", "/entryeditor/entryeditor/1/execute/"),
    ("post", "/entryeditor/entryeditor/1/init/"),
]


@pytest.mark.parametrize(("method", "path"), ENDPOINTS)
@pytest.mark.parametrize("body", sorted(BODIES))
def test_a_deeply_nested_body_is_a_400(client: Client, method: str, path: str, body: str) -> None:
    response = getattr(client, method)(path, BODIES[body], content_type="application/json")
    assert response.status_code == 400, response.content[:200]
    error = response.json()["error"]
    assert error["code"] == "parse_error"
    assert str(MAX_DEPTH) in error["message"]


def test_depth_counts_brackets_outside_strings_only() -> None:
    assert depth(b'{"a": [1, {"b": "[[[[{{"}]}') == 3
    assert depth(b'["\\"[", []]') == 2
    assert depth(b"17") == 0
