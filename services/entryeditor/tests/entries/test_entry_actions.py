"""execute, init and diff on entries, and the seed_entries demo data."""

from __future__ import annotations

import io
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connections
from django.test import Client
from strsimpy.cosine import Cosine
from strsimpy.jaccard import Jaccard
from strsimpy.qgram import QGram

from entryeditor_service.corpus.models import Token, WordFreq
from entryeditor_service.entries import diff

from ..conftest import API_TOKEN

BASE = "/entryeditor/entryeditor/"


def post(client: Client, path: str, body: Any) -> Any:
    return client.post(path, json.dumps(body), "application/json")


@pytest.fixture(scope="module")
def seeded(corpus: None) -> str:
    out = io.StringIO()
    call_command("seed_entries", stdout=out)
    return out.getvalue()


def test_seed_creates_the_write_ups_ids(client: Client, seeded: str) -> None:
    assert "Seeded 60 entries" in seeded
    for pk in (22, 45, 47, 51):
        assert client.get(f"{BASE}{pk}").status_code == 200
    assert client.get(f"{BASE}47").json()["word"] == "水"
    assert client.get(BASE).json()["count"] >= 60


def test_execute_freq(client: Client, seeded: str) -> None:
    for path in (f"{BASE}47/execute/", f"{BASE}47/execute"):
        response = post(client, path, {"command": "freq(pattern=水)"})
        assert response.status_code == 200
        body = response.json()
        assert (body["entry"], body["command"]) == (47, "freq")
        assert body["result"]["count"] == Token.objects.filter(word="水").count()


def test_execute_defaults_to_the_entrys_word_and_expands_wildcards(
    client: Client, seeded: str
) -> None:
    body = post(client, f"{BASE}51/execute/", {"command": "freq()"}).json()
    assert body["result"]["pattern"] == "必须"
    wild = post(client, f"{BASE}51/execute/", {"command": "freq(pattern=经济*, limit=3)"}).json()
    forms = wild["result"]["forms"]
    assert len(forms) == 3
    assert all(form["word"].startswith("经济") for form in forms)
    total = sum(w.freq for w in WordFreq.objects.filter(word__startswith="经济"))
    assert wild["result"]["count"] == total


def test_execute_kwic(client: Client, seeded: str) -> None:
    command = {"command": "kwic(pattern=发展/v, window=2, limit=4)"}
    lines = post(client, f"{BASE}51/execute/", command).json()["result"]["lines"]
    assert len(lines) == 4
    for line in lines:
        assert (line["keyword"], line["pos"]) == ("发展", "v")
        words = list(
            Token.objects.filter(sentence_id=line["sentence_id"])
            .order_by("position")
            .values_list("word", flat=True)
        )
        position = line["position"]
        assert line["left"] == "".join(words[max(0, position - 2) : position])
        assert line["right"] == "".join(words[position + 1 : position + 3])


def test_execute_collocates_by_count(client: Client, seeded: str) -> None:
    command = {"command": "collocates(pattern=发展, window=3, measure=count, limit=5)"}
    items = post(client, f"{BASE}51/execute/", command).json()["result"]["collocates"]
    counts = [item["count"] for item in items]
    assert counts == sorted(counts, reverse=True)
    assert len(items) == 5


def test_execute_bad_command_points_at_the_error(client: Client, seeded: str) -> None:
    response = post(client, f"{BASE}47/execute/", {"command": "kwic(pattern=水, window=x)"})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "bad_command"
    assert (error["line"], error["column"]) == (1, 24)
    assert error["context"] == "kwic(pattern=水, window=x)\n" + " " * 23 + "^"


@pytest.mark.parametrize("body", [{}, {"command": 5}, {"cmd": "freq()"}, [1, 2]])
def test_execute_bad_body_is_400(client: Client, seeded: str, body: Any) -> None:
    response = post(client, f"{BASE}47/execute/", body)
    assert response.status_code == 400
    assert response.json()["error"]["code"] in {"invalid", "bad_request"}


def test_execute_on_a_missing_entry_is_404(client: Client) -> None:
    response = post(client, f"{BASE}999999/execute/", {"command": "freq(pattern=水)"})
    assert response.status_code == 404


@pytest.mark.parametrize("empty", ["false", False])
def test_init_fills_the_entry_from_the_corpus(client: Client, seeded: str, empty: Any) -> None:
    before = client.get(f"{BASE}51").json()["version"]
    response = post(client, f"{BASE}51/init/", {"word": "必须", "empty": empty})
    assert response.status_code == 200
    entry = response.json()
    assert entry["version"] == before + 1
    occurrences = Token.objects.filter(word="必须")
    assert entry["frequency"] == occurrences.count()
    assert entry["pos"] == "d"
    assert sum(entry["pos_distribution"].values()) == entry["frequency"]
    assert entry["examples"]
    assert all("必须" in example["text"] for example in entry["examples"])
    assert entry["senses"][0]["pos"] == "d"
    pmis = [c["pmi"] for c in entry["collocates"]]
    assert pmis == sorted(pmis, reverse=True)


@pytest.mark.parametrize("empty", ["true", True])
def test_init_empty_creates_a_new_entry(client: Client, empty: Any) -> None:
    response = post(client, f"{BASE}900001/init", {"word": "水", "empty": empty})
    assert response.status_code in {200, 201}
    entry = response.json()
    assert (entry["id"], entry["word"], entry["frequency"], entry["senses"]) == (
        900001,
        "水",
        0,
        [],
    )


def test_concurrent_inits_of_a_new_entry_create_it_once(client: Client) -> None:
    threads = 10
    barrier = threading.Barrier(threads)

    def init(_: int) -> int:
        try:
            barrier.wait()
            own = Client(headers={"Authorization": f"Bearer {API_TOKEN}"})
            return post(own, f"{BASE}900002/init/", {"word": "发展"}).status_code
        finally:
            connections.close_all()

    with ThreadPoolExecutor(threads) as pool:
        statuses = sorted(pool.map(init, range(threads)))
    assert statuses == [200] * (threads - 1) + [201]
    assert client.get(f"{BASE}900002").json()["version"] == threads


def test_init_with_a_stale_version_is_409(client: Client, seeded: str) -> None:
    # An init of its own first: a seeded entry is at version 1, and 0 is no version at all
    # (400), whatever ran before this test (pytest-xdist splits the module between workers).
    assert post(client, f"{BASE}51/init/", {"word": "必须", "empty": "false"}).status_code == 200
    current = client.get(f"{BASE}51").json()["version"]
    assert current >= 2
    body = {"word": "必须", "empty": "false", "version": current - 1}
    response = post(client, f"{BASE}51/init/", body)
    assert response.status_code == 409
    assert response.json()["error"]["current_version"] == current


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"empty": "false"}, "word"),
        ({"word": "", "empty": "false"}, "word"),
        ({"word": "必须", "empty": "maybe"}, "empty"),
        ({"word": "必 须"}, "word"),
    ],
)
def test_init_bad_input_is_400(client: Client, body: dict[str, Any], field: str) -> None:
    response = post(client, f"{BASE}51/init/", body)
    assert response.status_code == 400
    assert field in response.json()["error"]["fields"]


def test_diff_of_the_demo_entries(client: Client, seeded: str) -> None:
    for path in (f"{BASE}45/diff/22/", f"{BASE}45/diff/22"):
        response = client.get(path)
        assert response.status_code == 200
        body = response.json()
        assert body["changed"] == ["senses", "examples"]
        by_field = {field["field"]: field for field in body["fields"]}
        assert by_field["word"]["identical"] is True
        senses = by_field["senses"]
        assert senses["qgram_distance"] > 0
        assert 0 < senses["cosine_similarity"] < 1
        a, b = diff.canonical(senses["a"]), diff.canonical(senses["b"])
        assert senses["qgram_distance"] == QGram(2).distance(a, b)
        assert senses["cosine_similarity"] == Cosine(2).similarity(a, b)
        assert senses["jaccard_similarity"] == Jaccard(2).similarity(a, b)


def test_diff_with_itself_is_identical(client: Client, seeded: str) -> None:
    body = client.get(f"{BASE}47/diff/47/").json()
    assert body["identical"] is True
    assert body["changed"] == []
    assert body["similarity"] == 1.0


def test_diff_with_a_missing_entry_is_404(client: Client, seeded: str) -> None:
    response = client.get(f"{BASE}47/diff/999999/")
    assert response.status_code == 404
    assert "999999" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("", ""),
        ("a", "ab"),
        ("我们必须努力", "我们一定要努力"),
        ("  spaced \t text ", "spaced text"),
        ("必须必须必须", "必须"),
        ('[{"definition":"一定要"}]', '[{"definition":"一定要；必要"}]'),
    ],
)
def test_measures_equal_strsimpys(a: str, b: str) -> None:
    p_a, p_b = diff.profile(a), diff.profile(b)
    assert p_a == QGram(2).get_profile(a)
    assert diff.qgram_distance(p_a, p_b) == QGram(2).distance(a, b)
    if a and b:
        assert diff.cosine_similarity(a, b, p_a, p_b) == Cosine(2).similarity(a, b)
        assert diff.jaccard_similarity(a, b, p_a, p_b) == Jaccard(2).similarity(a, b)
