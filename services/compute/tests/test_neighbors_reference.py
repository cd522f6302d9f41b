"""Neighbours from the server equal a brute-force numpy reference on the same model."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from compute_contract.computeidl import Compute
from compute_service import artifact


def test_server_neighbors_match_brute_force(client: Compute.Client, model_dir: Path) -> None:
    [path] = model_dir.glob("model-*.npz")
    model = artifact.load(path)
    assert model is not None
    vectors = model.sentence_vectors.astype(np.float64)
    row_of = {int(i): row for row, i in enumerate(model.sentence_ids)}
    sample = np.random.default_rng(7).choice(model.sentence_ids, size=25, replace=False)
    k = 20
    for sentence_id in (int(i) for i in sample):
        row = row_of[sentence_id]
        reference = vectors @ vectors[row]
        reference[row] = -np.inf
        expected = np.sort(reference)[::-1][:k]
        got = client.neighbors(sentence_id, k)
        # The same k best scores (ties may pick different ids of equal score) ...
        np.testing.assert_allclose([n.score for n in got], expected, atol=1e-5)
        # ... and each returned id really has the score it is given.
        for n in got:
            assert abs(reference[row_of[n.sentence_id]] - n.score) < 1e-5
