"""Each call of compute.thrift and each typed error, over the real server on loopback."""

from __future__ import annotations

from typing import Any

import pytest

from compute_contract.computeidl import Compute
from compute_contract.computeidl.ttypes import BadRequest, UnknownSentence, UnknownWord


def test_ping(client: Compute.Client) -> None:
    assert client.ping() == "pong"


def test_info_describes_the_model(client: Compute.Client, corpus: Any) -> None:
    info = client.info()
    [(sentences,)] = corpus.query("SELECT COUNT(*) FROM corpus_sentence")
    assert info.sentences == sentences
    assert info.words > 1000
    assert info.dimensions == 100
    assert len(info.corpus_checksum) == 64
    assert (info.max_k, info.max_batch) == (100, 256)


def test_neighbors_are_other_sentences_best_first_with_their_text(
    client: Compute.Client, corpus: Any
) -> None:
    neighbors = client.neighbors(1000, 10)
    assert len(neighbors) == 10
    ids = [n.sentence_id for n in neighbors]
    assert 1000 not in ids
    assert len(set(ids)) == 10
    scores = [n.score for n in neighbors]
    assert scores == sorted(scores, reverse=True)
    assert all(-1.0001 <= score <= 1.0001 for score in scores)
    texts = {
        i: corpus.query("SELECT text FROM corpus_sentence WHERE id = %s", [i])[0][0] for i in ids
    }
    assert {n.sentence_id: n.text for n in neighbors} == texts


def test_batch_answers_each_sentence_as_a_single_call_would(client: Compute.Client) -> None:
    ids = [1, 500, 1000, 1999, 500]
    batch = client.neighbors_batch(ids, 5)
    assert [answer.sentence_id for answer in batch] == ids
    for answer in batch:
        single = client.neighbors(answer.sentence_id, 5)
        # One matrix product for the batch, one per call: float32 sums in another order.
        assert [n.sentence_id for n in answer.neighbors] == [n.sentence_id for n in single]
        assert [n.score for n in answer.neighbors] == pytest.approx(
            [n.score for n in single], abs=1e-5
        )


def test_similar_words(client: Compute.Client) -> None:
    words = client.similar_words("经济", 5)
    assert len(words) == 5
    assert "经济" not in [w.word for w in words]
    assert [w.score for w in words] == sorted((w.score for w in words), reverse=True)


def test_unknown_sentence(client: Compute.Client) -> None:
    with pytest.raises(UnknownSentence) as raised:
        client.neighbors(10**7, 5)
    assert raised.value.sentence_id == 10**7
    with pytest.raises(UnknownSentence):
        client.neighbors_batch([1, 0], 5)


@pytest.mark.parametrize("k", [0, -1, 101])
def test_bad_k(client: Compute.Client, k: int) -> None:
    with pytest.raises(BadRequest) as raised:
        client.neighbors(1, k)
    assert raised.value.max_k == 100
    with pytest.raises(BadRequest):
        client.similar_words("经济", k)


@pytest.mark.parametrize("size", [0, 257])
def test_bad_batch_size(client: Compute.Client, size: int) -> None:
    with pytest.raises(BadRequest) as raised:
        client.neighbors_batch([1] * size, 5)
    assert raised.value.max_batch == 256


def test_unknown_word(client: Compute.Client) -> None:
    with pytest.raises(UnknownWord) as raised:
        client.similar_words("没有这个词", 5)
    assert raised.value.word == "没有这个词"


def test_errors_leave_the_connection_usable(client: Compute.Client) -> None:
    for _ in range(3):
        with pytest.raises(UnknownSentence):
            client.neighbors(-5, 5)
        assert client.ping() == "pong"
