"""The Compute service's calls (compute.thrift), over one loaded model and the database pool."""

from __future__ import annotations

from collections.abc import Sequence

from compute_contract.computeidl.ttypes import (
    BadRequest,
    ModelInfo,
    Neighbor,
    SentenceNeighbors,
    SimilarWord,
    UnknownSentence,
    UnknownWord,
)
from compute_service.corpus import sentence_texts
from compute_service.model import Model
from compute_service.pool import ConnectionPool
from compute_service.topk import top_k


class ComputeHandler:
    def __init__(self, model: Model, pool: ConnectionPool, *, max_k: int, max_batch: int) -> None:
        self.model = model
        self.pool = pool
        self.max_k = max_k
        self.max_batch = max_batch
        self._sentence_rows = {int(i): row for row, i in enumerate(model.sentence_ids)}
        self._word_rows = {str(word): row for row, word in enumerate(model.words)}

    def ping(self) -> str:
        return "pong"

    def info(self) -> ModelInfo:
        return ModelInfo(
            corpus_checksum=self.model.corpus_checksum,
            sentences=len(self.model.sentence_ids),
            words=len(self.model.words),
            dimensions=int(self.model.sentence_vectors.shape[1]),
            max_k=self.max_k,
            max_batch=self.max_batch,
        )

    def neighbors(self, sentence_id: int, k: int) -> list[Neighbor]:
        (answer,) = self.neighbors_batch([sentence_id], k)
        neighbors: list[Neighbor] = answer.neighbors
        return neighbors

    def neighbors_batch(self, sentence_ids: Sequence[int], k: int) -> list[SentenceNeighbors]:
        self._check_k(k)
        if not 1 <= len(sentence_ids) <= self.max_batch:
            raise self._bad(f"a batch holds 1 to {self.max_batch} sentence ids")
        rows = [self._sentence_row(sentence_id) for sentence_id in sentence_ids]
        found = top_k(self.model.sentence_vectors, rows, k)
        ids = self.model.sentence_ids
        wanted = sorted({int(ids[row]) for answer in found for row, _ in answer})
        with self.pool.connection() as conn:
            texts = sentence_texts(conn, wanted)
        return [
            SentenceNeighbors(
                sentence_id=sentence_id,
                neighbors=[
                    Neighbor(int(ids[row]), texts.get(int(ids[row]), ""), score)
                    for row, score in answer
                ],
            )
            for sentence_id, answer in zip(sentence_ids, found, strict=True)
        ]

    def similar_words(self, word: str, k: int) -> list[SimilarWord]:
        self._check_k(k)
        row = self._word_rows.get(word)
        if row is None:
            raise UnknownWord(word=word, message=f"{word!r} is not in the model's vocabulary")
        (answer,) = top_k(self.model.word_vectors, [row], k)
        return [SimilarWord(str(self.model.words[other]), score) for other, score in answer]

    def _sentence_row(self, sentence_id: int) -> int:
        row = self._sentence_rows.get(sentence_id)
        if row is None:
            raise UnknownSentence(
                sentence_id=sentence_id, message=f"no sentence {sentence_id} in the model"
            )
        return row

    def _check_k(self, k: int) -> None:
        if not 1 <= k <= self.max_k:
            raise self._bad(f"k must be between 1 and {self.max_k}")

    def _bad(self, message: str) -> BadRequest:
        return BadRequest(message=message, max_k=self.max_k, max_batch=self.max_batch)
