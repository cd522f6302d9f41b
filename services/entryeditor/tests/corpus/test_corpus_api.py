"""GET /corpus/sentence/{id} and /corpus/statistics/{get_instance,get_count,get_pmi}/."""

from __future__ import annotations

import pytest
from django.test import Client

from entryeditor_service.corpus.models import Token


def test_sentence_with_and_without_slash(client: Client) -> None:
    for path in ("/corpus/sentence/1000", "/corpus/sentence/1000/"):
        response = client.get(path)
        assert response.status_code == 200
        body = response.json()
        assert body["id"] == 1000
        assert body["text"] == "第二，大力发展两岸经济合作，互补互利、共同繁荣。"
        assert body["n_tokens"] == len(body["tokens"]) == 14
        assert body["tokens"][3] == {"word": "发展", "pos": "v"}


@pytest.mark.parametrize("path", ["/corpus/sentence/0", "/corpus/sentence/999999"])
def test_missing_sentence_is_404_json(client: Client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_bad_sentence_id_is_404_json(client: Client) -> None:
    response = client.get("/corpus/sentence/abc")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_get_count(client: Client) -> None:
    expected = Token.objects.filter(word="的").count()
    body = client.get("/corpus/statistics/get_count/", {"word": "的"}).json()
    assert body["count"] == expected
    assert sum(item["count"] for item in body["by_pos"]) == expected
    assert body["tokens"] == Token.objects.count()
    only_u = client.get("/corpus/statistics/get_count", {"word": "的", "pos": "u"}).json()
    assert only_u["count"] == Token.objects.filter(word="的", pos="u").count()
    absent = client.get("/corpus/statistics/get_count/", {"word": "不存在的词"}).json()
    assert absent["count"] == 0
    assert absent["by_pos"] == []


def test_get_instance(client: Client) -> None:
    body = client.get(
        "/corpus/statistics/get_instance/", {"word": "发展", "limit": 3, "offset": 1}
    ).json()
    expected = list(
        Token.objects.filter(word="发展")
        .order_by("sentence_id", "position")
        .values_list("sentence_id", "position")[1:4]
    )
    assert [(i["sentence_id"], i["position"]) for i in body["instances"]] == expected
    assert body["count"] == Token.objects.filter(word="发展").count()
    for instance in body["instances"]:
        assert "发展" in instance["text"]


@pytest.mark.parametrize(
    ("path", "params", "field"),
    [
        ("get_instance", {}, "word"),
        ("get_instance", {"word": "水", "limit": "0"}, "limit"),
        ("get_instance", {"word": "水", "limit": "many"}, "limit"),
        ("get_instance", {"word": "水", "offset": "-1"}, "offset"),
        ("get_count", {"word": "水", "pos": "n1"}, "pos"),
        ("get_count", {"word": "水 水"}, "word"),
        ("get_count", {"word": "水" * 65}, "word"),
        ("get_count", {"word": "水", "colour": "blue"}, "colour"),
        ("get_pmi", {"word": "水", "window": "11"}, "window"),
        ("get_pmi", {"word": "水", "min_count": "0"}, "min_count"),
        ("get_pmi", {"word": "水", "limit": "201"}, "limit"),
        # An empty value, which DRF would read as none given.
        ("get_pmi", {"word": "水", "min_count": ""}, "min_count"),
        ("get_count", {"word": "水", "pos": ""}, "pos"),
        ("get_count", {"word": ["水", "火"]}, "word"),
    ],
)
def test_bad_parameters_are_400_json(
    client: Client, path: str, params: dict[str, str], field: str
) -> None:
    response = client.get(f"/corpus/statistics/{path}/", params)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    assert field in error["fields"]


def test_get_pmi_ranks_collocates(client: Client) -> None:
    response = client.get("/corpus/statistics/get_pmi/", {"word": "发展", "window": 3})
    assert response.status_code == 200
    body = response.json()
    assert body["node_freq"] == Token.objects.filter(word="发展").count()
    collocates = body["collocates"]
    assert collocates
    pmis = [c["pmi"] for c in collocates]
    assert pmis == sorted(pmis, reverse=True)
    assert all(c["count"] >= body["min_count"] and c["pos"] != "w" for c in collocates)


def test_post_is_405_json(client: Client) -> None:
    response = client.post("/corpus/statistics/get_count/", {"word": "水"})
    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
