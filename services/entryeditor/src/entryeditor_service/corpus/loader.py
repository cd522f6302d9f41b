"""Bulk load of the corpus into corpus_sentence / corpus_token / corpus_wordfreq."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.core.management.color import no_style
from django.db import connection, transaction

from entryeditor_service.corpus import queries, source
from entryeditor_service.corpus.models import CorpusLoad, Sentence, Token, WordFreq

INSERT_SENTENCES = "INSERT INTO corpus_sentence (id, para, text, n_tokens) VALUES (%s, %s, %s, %s)"
INSERT_TOKENS = (
    "INSERT INTO corpus_token (id, sentence_id, position, word, pos) VALUES (%s, %s, %s, %s, %s)"
)
INSERT_WORDFREQ = (
    "INSERT INTO corpus_wordfreq (word, pos, freq) "
    "SELECT word, pos, COUNT(*) FROM corpus_token GROUP BY word, pos"
)


@dataclass(frozen=True)
class LoadResult:
    loaded: bool
    sentences: int
    tokens: int
    seconds: float


Progress = Callable[[str], None]


class LoadBusy(RuntimeError):
    pass


@contextmanager
def exclusive(wait: float) -> Iterator[None]:
    """One load at a time per database (a MySQL named lock, waited for up to `wait`
    seconds): a second load_corpus started meanwhile then finds the corpus loaded."""
    if connection.vendor != "mysql":
        yield
        return
    name = f"entryeditor.load_corpus.{connection.settings_dict['NAME']}"[:64]
    with connection.cursor() as cursor:
        cursor.execute("SELECT GET_LOCK(%s, %s)", [name, wait])
        if cursor.fetchone()[0] != 1:
            raise LoadBusy(f"another load_corpus holds the lock {name!r} (waited {wait:g} s)")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT RELEASE_LOCK(%s)", [name])


def current(digest: str, limit: int | None) -> CorpusLoad | None:
    """The load record if the corpus with this digest and limit is the one loaded."""
    return CorpusLoad.objects.filter(pk=1, digest=digest, limit=limit).first()


def clear() -> None:
    """Empty the corpus tables (TRUNCATE where the database has it)."""
    tables = [CorpusLoad._meta.db_table, WordFreq._meta.db_table]
    tables += [Token._meta.db_table, Sentence._meta.db_table]
    statements = connection.ops.sql_flush(no_style(), tables, reset_sequences=True)
    with transaction.atomic():
        connection.ops.execute_sql_flush(statements)


def _index_names(model: type[Token] | type[WordFreq]) -> set[str]:
    with connection.cursor() as cursor:
        return set(connection.introspection.get_constraints(cursor, model._meta.db_table))


def drop_token_indexes() -> None:
    """Drop corpus_token's secondary indexes: rows go in faster, and the indexes are then
    built once, sorted, instead of row by row."""
    present = _index_names(Token)
    with connection.schema_editor() as editor:
        for index in Token._meta.indexes:
            if index.name in present:
                editor.remove_index(Token, index)


def build_token_indexes() -> None:
    present = _index_names(Token)
    with connection.schema_editor() as editor:
        for index in Token._meta.indexes:
            if index.name not in present:
                editor.add_index(Token, index)


def insert_batch(sentences: list[source.Sentence], first_token_id: int) -> int:
    """Insert sentences and their tokens in one transaction; return the next token id."""
    sentence_rows = [(s.id, s.para, s.text, len(s.words)) for s in sentences]
    token_rows = []
    token_id = first_token_id
    for s in sentences:
        for position, (word, tag) in enumerate(zip(s.words, s.tags, strict=True)):
            token_rows.append((token_id, s.id, position, word, tag))
            token_id += 1
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(INSERT_SENTENCES, sentence_rows)
        cursor.executemany(INSERT_TOKENS, token_rows)
    return token_id


def batches(items: Iterable[source.Sentence], size: int) -> Iterable[list[source.Sentence]]:
    batch: list[source.Sentence] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def load(
    path: Path,
    *,
    limit: int | None = None,
    batch_size: int = 2000,
    progress_every: int = 10000,
    force: bool = False,
    progress: Progress = print,
) -> LoadResult:
    """Load `path` (the first `limit` sentences) unless that exact corpus is loaded already."""
    digest = source.digest(path)
    loaded = current(digest, limit)
    if loaded is not None and not force:
        return LoadResult(False, loaded.sentences, loaded.tokens, 0.0)
    started = time.perf_counter()
    clear()
    drop_token_indexes()
    n_sentences = 0
    next_token = 1
    reported = 0
    with connection.constraint_checks_disabled():
        for batch in batches(source.read_sentences(path, limit), batch_size):
            next_token = insert_batch(batch, next_token)
            n_sentences += len(batch)
            if n_sentences - reported >= progress_every:
                reported = n_sentences
                elapsed = time.perf_counter() - started
                progress(
                    f"  {n_sentences} sentences, {next_token - 1} tokens, "
                    f"{n_sentences / elapsed:.0f} sentences/s"
                )
    progress("  building the indexes")
    build_token_indexes()
    progress("  building the word frequency table")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(INSERT_WORDFREQ)
    seconds = time.perf_counter() - started
    CorpusLoad.objects.update_or_create(
        pk=1,
        defaults={
            "source": str(path)[-255:],
            "digest": digest,
            "limit": limit,
            "sentences": n_sentences,
            "tokens": next_token - 1,
            "seconds": seconds,
        },
    )
    queries.forget_info()
    return LoadResult(True, n_sentences, next_token - 1, seconds)
