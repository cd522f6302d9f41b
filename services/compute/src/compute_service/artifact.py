"""The model on disk: one .npz file per key (corpus checksum + training parameters).

Written to a temporary file and renamed into place, so a reader sees a whole artifact or
none; read without pickle.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from compute_service.model import Model


def artifact_path(model_dir: Path, key: str) -> Path:
    return model_dir / f"model-{key}.npz"


def save(model: Model, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".model-", suffix=".npz")
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide it from other users of the volume
        with os.fdopen(fd, "wb") as file:
            np.savez(
                file,
                corpus_checksum=np.asarray(model.corpus_checksum),
                sentence_ids=model.sentence_ids,
                sentence_vectors=model.sentence_vectors,
                words=model.words,
                word_vectors=model.word_vectors,
            )
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def load(path: Path) -> Model | None:
    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as data:
        return Model(
            corpus_checksum=str(data["corpus_checksum"]),
            sentence_ids=data["sentence_ids"],
            sentence_vectors=data["sentence_vectors"],
            words=data["words"],
            word_vectors=data["word_vectors"],
        )
