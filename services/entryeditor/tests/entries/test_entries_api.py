"""Entries: list, create, detail, PUT/PATCH with optimistic concurrency (409 when stale)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

BASE = "/entryeditor/entryeditor/"
SENSE = {"pos": "v", "definition": "一定要", "examples": ["我们必须努力。"]}


def create(client: Client, **fields: Any) -> dict[str, Any]:
    response = client.post(BASE, {"word": "必须", **fields}, content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()


def test_create_and_read(client: Client) -> None:
    entry = create(client, pos="d", senses=[SENSE], frequency=3)
    assert entry["version"] == 1
    assert entry["senses"] == [SENSE]
    for path in (f"{BASE}{entry['id']}", f"{BASE}{entry['id']}/"):
        response = client.get(path)
        assert response.status_code == 200
        assert response.json() == entry


def test_list_is_paginated_in_id_order(client: Client) -> None:
    ids = [create(client, frequency=i)["id"] for i in range(3)]
    for path in (BASE, BASE.rstrip("/")):
        body = client.get(path, {"page_size": 2}).json()
        assert set(body) == {"count", "next", "previous", "results"}
        assert len(body["results"]) == 2
        assert body["count"] >= 3
    last_page = (body["count"] + 1) // 2
    rows = client.get(BASE, {"page_size": 2, "page": last_page}).json()["results"]
    assert rows[-1]["id"] == ids[-1]
    assert set(rows[-1]) == {"id", "word", "pos", "frequency", "version", "updated_at"}


@pytest.mark.parametrize("query", ["page=1&page=2", "page="])
def test_a_page_given_twice_or_empty_is_400(client: Client, query: str) -> None:
    response = client.get(f"{BASE}?{query}")
    assert response.status_code == 400
    assert "page" in response.json()["error"]["fields"]


def test_entry_0_is_no_entry(client: Client) -> None:
    """Ids start at 1: MySQL refuses 0 for an auto-increment key (a 500 before)."""
    assert client.get(f"{BASE}0").status_code == 404
    response = client.post(f"{BASE}0/init/", {"word": "水"}, content_type="application/json")
    assert response.status_code == 404


@pytest.mark.parametrize("page_size", ["0", "-1", "two", "null"])
def test_a_page_size_that_is_no_positive_integer_is_400(client: Client, page_size: str) -> None:
    response = client.get(BASE, {"page_size": page_size})
    assert response.status_code == 400
    assert "page_size" in response.json()["error"]["fields"]


def test_list_searches_by_word_prefix(client: Client) -> None:
    ids = {create(client, word=word)["id"] for word in ("检索词甲", "检索词乙")}
    create(client, word="别的检索词")
    body = client.get(BASE, {"word": "检索词"}).json()
    assert {row["id"] for row in body["results"]} == ids
    assert body["count"] == 2
    refused = client.get(BASE, {"word": "two words"})
    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "invalid"


def test_missing_entry_is_404(client: Client) -> None:
    response = client.get(f"{BASE}999999")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    put = client.put(f"{BASE}999999", {"word": "水", "version": 1}, "application/json")
    assert put.status_code == 404


def test_put_and_patch_bump_the_version(client: Client) -> None:
    entry = create(client, pos="d", senses=[SENSE])
    url = f"{BASE}{entry['id']}"
    patched = client.patch(url, {"frequency": 7, "version": 1}, "application/json")
    assert patched.status_code == 200
    assert patched.json()["frequency"] == 7
    assert patched.json()["senses"] == [SENSE]
    assert patched.json()["version"] == 2
    put = client.put(url, {"word": "务必", "version": 2}, "application/json")
    assert put.status_code == 200
    body = put.json()
    assert (body["word"], body["version"], body["senses"], body["frequency"]) == ("务必", 3, [], 0)


def test_stale_write_is_409(client: Client) -> None:
    entry = create(client)
    url = f"{BASE}{entry['id']}"
    first = client.patch(url, {"pos": "d", "version": 1}, "application/json")
    assert first.status_code == 200
    stale = client.patch(url, {"pos": "v", "version": 1}, "application/json")
    assert stale.status_code == 409
    error = stale.json()["error"]
    assert error["code"] == "conflict"
    assert error["current_version"] == 2
    assert client.get(url).json()["pos"] == "d"


@pytest.mark.parametrize(
    ("method", "body", "field"),
    [
        ("post", {}, "word"),
        ("post", {"word": ""}, "word"),
        ("post", {"word": "水", "pos": "名词"}, "pos"),
        ("post", {"word": "水", "senses": [{"examples": []}]}, "senses"),
        ("post", {"word": "水", "senses": "not a list"}, "senses"),
        ("post", {"word": "水", "frequency": -1}, "frequency"),
        # Over MySQL's INT: refused here, not by the database (a 500).
        ("post", {"word": "水", "frequency": 2**31}, "frequency"),
        ("patch", {"frequency": 1, "version": 2**63}, "version"),
        # A boolean is no number, a number no word (DRF would take them as 0.0 and "0").
        (
            "post",
            {"word": "水", "collocates": [{"word": "a", "pos": "n", "count": 1, "pmi": False}]},
            "collocates",
        ),
        ("post", {"word": "水", "collocates": [{"word": "a", "pos": 0, "count": 1}]}, "collocates"),
        ("post", {"word": "水", "examples": [{"text": 0}]}, "examples"),
        # A PATCH replaces a list whole: each item is complete (an example has its text).
        ("patch", {"examples": [{"sentence_id": 1}], "version": 1}, "examples"),
        ("patch", {"frequency": 1}, "version"),
        ("patch", {"frequency": 1, "version": "one"}, "version"),
        ("put", {"version": 1}, "word"),
    ],
)
def test_bad_entry_input_is_400(
    client: Client, method: str, body: dict[str, Any], field: str
) -> None:
    url = BASE if method == "post" else f"{BASE}{create(client)['id']}"
    response = getattr(client, method)(url, body, "application/json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert field in error["fields"]


def test_malformed_json_is_400(client: Client) -> None:
    response = client.post(BASE, "{not json", "application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "parse_error"


def test_form_body_is_415(client: Client) -> None:
    response = client.post(BASE, {"word": "水"})
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"


def test_oversized_body_is_413(client: Client) -> None:
    sense = {"definition": "定义" * 500, "examples": []}
    body = json.dumps({"word": "水", "senses": [sense] * 600})
    assert len(body.encode()) > 1024 * 1024
    response = client.post(BASE, body, "application/json")
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "body_too_large"


def test_too_many_senses_is_400(client: Client) -> None:
    response = client.post(BASE, {"word": "水", "senses": [SENSE] * 101}, "application/json")
    assert response.status_code == 400
    assert "senses" in response.json()["error"]["fields"]
