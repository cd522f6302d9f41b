"""`compute-build`: reproducible, cached by corpus checksum, rebuilt when the corpus changes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from compute_service import artifact

BUILD = str(Path(sys.executable).parent / "compute-build")

# Each test makes a database with `entryeditor-manage` and trains in `compute-build`
# processes: seconds apiece, so `heavy`.
pytestmark = pytest.mark.heavy


def build(database: Any, model_dir: Path, hash_seed: str) -> str:
    env = {"DATABASE_URL": database.url, "COMPUTE_MODEL_DIR": str(model_dir)}
    result = subprocess.run(
        [BUILD],
        env={**env, "PYTHONHASHSEED": hash_seed, "PATH": str(Path(BUILD).parent)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return result.stdout


def test_two_builds_give_identical_vectors(corpus: Any, tmp_path: Path) -> None:
    """Separate processes with different string hashing still train the same model."""
    first, second = tmp_path / "first", tmp_path / "second"
    assert "built in" in build(corpus, first, "1")
    assert "built in" in build(corpus, second, "2")
    [a] = first.glob("model-*.npz")
    [b] = second.glob("model-*.npz")
    assert a.name == b.name
    model_a, model_b = artifact.load(a), artifact.load(b)
    assert model_a is not None and model_b is not None
    assert model_a.corpus_checksum == model_b.corpus_checksum
    np.testing.assert_array_equal(model_a.words, model_b.words)
    np.testing.assert_array_equal(model_a.word_vectors, model_b.word_vectors)
    np.testing.assert_array_equal(model_a.sentence_ids, model_b.sentence_ids)
    np.testing.assert_array_equal(model_a.sentence_vectors, model_b.sentence_vectors)
    assert a.read_bytes() == b.read_bytes()


def test_the_artifact_is_reused_until_the_corpus_changes(database: Any, tmp_path: Path) -> None:
    with database(300) as db:
        assert "built in" in build(db, tmp_path, "0")
        [original] = tmp_path.glob("model-*.npz")
        stamp = original.stat().st_mtime_ns
        assert "up to date" in build(db, tmp_path, "0")
        assert original.stat().st_mtime_ns == stamp
        db.query("UPDATE corpus_sentence SET text = CONCAT(text, '。') WHERE id = 7")
        assert "built in" in build(db, tmp_path, "0")
        assert len(list(tmp_path.glob("model-*.npz"))) == 2


def test_an_empty_corpus_is_a_clear_error(database: Any, tmp_path: Path) -> None:
    with database(10) as db:
        db.query("DELETE FROM corpus_token")
        db.query("DELETE FROM corpus_sentence")
        result = subprocess.run(
            [BUILD],
            env={"DATABASE_URL": db.url, "COMPUTE_MODEL_DIR": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode != 0
    assert "load_corpus" in result.stderr
    assert list(tmp_path.glob("*.npz")) == []
