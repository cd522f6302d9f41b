"""Word vectors trained with gensim's Word2Vec and the sentence vectors made from them.

The training is reproducible: a fixed seed, one worker thread (several threads interleave
updates in a different order on every run) and a hash function of our own for gensim's
per-word seeds in place of Python's `hash`, which PYTHONHASHSEED salts per process.
Sentence vectors are the mean of their words' vectors less the corpus's mean sentence
vector (the direction every sentence shares, which would otherwise put every cosine near
1), normalised to unit length, in float32; a sentence without a known word keeps a zero
vector (similarity 0 to all).
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib.metadata import version

import numpy as np

from compute_service.settings import Settings


def stable_hash(text: str) -> int:
    """gensim's `hashfxn`: the same value in every process, unlike `hash`."""
    return zlib.crc32(text.encode())


@dataclass(frozen=True)
class Training:
    dimensions: int
    window: int
    min_count: int
    epochs: int
    seed: int

    @classmethod
    def from_settings(cls, settings: Settings) -> Training:
        return cls(
            settings.dimensions, settings.window, settings.min_count, settings.epochs, settings.seed
        )

    def key(self, corpus_checksum: str) -> str:
        """The artifact's key: the corpus, the training parameters and gensim's version."""
        text = f"{corpus_checksum}:{self}:gensim {version('gensim')}"
        return hashlib.sha256(text.encode()).hexdigest()[:24]


@dataclass(frozen=True)
class Model:
    corpus_checksum: str
    sentence_ids: np.ndarray  # int32 (n,)
    sentence_vectors: np.ndarray  # float32 (n, d), rows of norm 1 or 0
    words: np.ndarray  # str (m,)
    word_vectors: np.ndarray  # float32 (m, d), rows of norm 1


def normalise(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    normalised = np.zeros_like(vectors)
    np.divide(vectors, norms, out=normalised, where=norms > 0)
    return normalised


def train(
    corpus_checksum: str,
    sentence_ids: Sequence[int],
    sentences: Sequence[Sequence[str]],
    training: Training,
) -> Model:
    # gensim (and the scipy it imports, seconds of start-up) loads only to train: a server
    # that reads a built artifact and the tests that import this module do without it.
    from gensim.models import Word2Vec

    w2v = Word2Vec(
        sentences=sentences,
        vector_size=training.dimensions,
        window=training.window,
        min_count=training.min_count,
        epochs=training.epochs,
        seed=training.seed,
        workers=1,
        hashfxn=stable_hash,
    )
    keyed = w2v.wv
    vectors = keyed.vectors.astype(np.float32)
    sentence_vectors = np.zeros((len(sentences), training.dimensions), dtype=np.float32)
    has_words = np.zeros(len(sentences), dtype=bool)
    for row, words in enumerate(sentences):
        known = [keyed.key_to_index[word] for word in words if word in keyed.key_to_index]
        if known:
            sentence_vectors[row] = vectors[known].mean(axis=0)
            has_words[row] = True
    if has_words.any():
        sentence_vectors[has_words] -= sentence_vectors[has_words].mean(axis=0)
    return Model(
        corpus_checksum=corpus_checksum,
        sentence_ids=np.asarray(sentence_ids, dtype=np.int32),
        sentence_vectors=normalise(sentence_vectors),
        words=np.asarray(keyed.index_to_key, dtype=str),
        word_vectors=normalise(vectors),
    )
