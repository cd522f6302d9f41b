"""Exact top-k by cosine similarity: one matrix product per batch of queries, then
argpartition (linear time) for the k best of each row and a sort of those k alone.

Rows are unit vectors (or zero), so the dot product is the cosine. Within the k, equal
scores are ordered by row, so the order never depends on how numpy's partition left them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

# Queries per matrix product: bounds the (queries x rows) score matrix to
# 64 x rows float32 (12.8 MB for 50,000 sentences).
CHUNK = 64


def top_k(vectors: np.ndarray, query_rows: Sequence[int], k: int) -> list[list[tuple[int, float]]]:
    """For each query row, the k other rows most similar to it, best first, as (row, score)."""
    count = vectors.shape[0]
    k = min(k, count - 1)
    answers: list[list[tuple[int, float]]] = []
    if k <= 0:
        return [[] for _ in query_rows]
    for start in range(0, len(query_rows), CHUNK):
        rows = np.asarray(query_rows[start : start + CHUNK], dtype=np.intp)
        scores = vectors[rows] @ vectors.T
        scores[np.arange(len(rows)), rows] = -np.inf
        best = np.argpartition(scores, count - k, axis=1)[:, count - k :]
        best_scores = np.take_along_axis(scores, best, axis=1)
        for candidates, candidate_scores in zip(best, best_scores, strict=True):
            order = np.lexsort((candidates, -candidate_scores))
            answers.append([(int(candidates[i]), float(candidate_scores[i])) for i in order])
    return answers
