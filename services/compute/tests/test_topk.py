"""top_k against sorting every score, on random unit vectors with planted ties."""

from __future__ import annotations

import numpy as np

from compute_service.model import normalise
from compute_service.topk import CHUNK, top_k


def test_top_k_equals_a_full_sort_across_chunks() -> None:
    rng = np.random.default_rng(3)
    vectors = normalise(rng.standard_normal((500, 16)).astype(np.float32))
    vectors[10] = vectors[20]  # a duplicate: equal scores, ordered by row
    queries = list(range(0, 500, 3))
    assert len(queries) > CHUNK
    for query, answer in zip(queries, top_k(vectors, queries, 7), strict=True):
        scores = vectors @ vectors[query]
        scores[query] = -np.inf
        expected = sorted(range(500), key=lambda row: (-scores[row], row))[:7]
        assert [row for row, _ in answer] == expected
        np.testing.assert_allclose([s for _, s in answer], scores[expected], rtol=1e-6)


def test_k_larger_than_the_rest_returns_every_other_row() -> None:
    vectors = normalise(np.eye(4, dtype=np.float32))
    (answer,) = top_k(vectors, [2], 50)
    assert sorted(row for row, _ in answer) == [0, 1, 3]


def test_zero_vectors_score_zero() -> None:
    vectors = np.zeros((3, 4), dtype=np.float32)
    vectors[0, 0] = 1.0
    (answer,) = top_k(vectors, [0], 2)
    assert answer == [(1, 0.0), (2, 0.0)]
