"""The corpus as the entry editor stores it (corpus_sentence, corpus_token), read with SQL.

Its checksum keys the model artifact: SHA-256 over every sentence row (id, paragraph,
text: the words joined, token count) in id order and the number of tokens. Reading it
costs one pass over the sentences, so the server checks it at every start and rebuilds
only when the corpus changed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import Any

from pymysql.connections import Connection
from pymysql.cursors import SSCursor

# Parts of speech the model leaves out: punctuation (`w` in the People's Daily tagging).
SKIPPED_POS = frozenset({"w"})


def _rows(conn: Connection[Any], sql: str) -> Iterator[tuple[Any, ...]]:
    """Stream a large result without holding it all in the client."""
    with conn.cursor(SSCursor) as cursor:
        cursor.execute(sql)
        yield from cursor


def corpus_checksum(conn: Connection[Any]) -> str:
    digest = hashlib.sha256()
    for sentence_id, para, text, n_tokens in _rows(
        conn, "SELECT id, para, text, n_tokens FROM corpus_sentence ORDER BY id"
    ):
        digest.update(f"{sentence_id}\t{para}\t{n_tokens}\t{text}\n".encode())
    with conn.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM corpus_token")
        (tokens,) = cursor.fetchone() or (0,)
    digest.update(f"tokens\t{tokens}\n".encode())
    return digest.hexdigest()


def read_sentences(conn: Connection[Any]) -> tuple[list[int], list[list[str]]]:
    """Every sentence id in order and its words (punctuation left out)."""
    words: dict[int, list[str]] = {}
    for (sentence_id,) in _rows(conn, "SELECT id FROM corpus_sentence ORDER BY id"):
        words[int(sentence_id)] = []
    for sentence_id, word, pos in _rows(
        conn, "SELECT sentence_id, word, pos FROM corpus_token ORDER BY sentence_id, position"
    ):
        if pos not in SKIPPED_POS and sentence_id in words:
            words[sentence_id].append(word)
    return list(words), list(words.values())


def sentence_texts(conn: Connection[Any], sentence_ids: Sequence[int]) -> dict[int, str]:
    if not sentence_ids:
        return {}
    marks = ", ".join(["%s"] * len(sentence_ids))
    with conn.cursor() as cursor:
        cursor.execute(
            f"SELECT id, text FROM corpus_sentence WHERE id IN ({marks})",  # noqa: S608
            list(sentence_ids),
        )
        return {int(sentence_id): text for sentence_id, text in cursor.fetchall()}
