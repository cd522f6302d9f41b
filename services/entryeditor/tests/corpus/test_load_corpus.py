"""load_corpus: sentences split right, ids stable, idempotent, reloads on another --limit."""

from __future__ import annotations

import io

import MySQLdb
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection
from django.test import Client

from entryeditor_service.corpus import queries, source
from entryeditor_service.corpus.models import CorpusLoad, Sentence, Token, WordFreq
from servelab.testing import mariadb

from ..conftest import CORPUS_LIMIT


def load(limit: int) -> str:
    out = io.StringIO()
    call_command("load_corpus", limit=limit, progress_every=500, stdout=out)
    return out.getvalue()


def test_sentences_end_at_sentence_final_punctuation() -> None:
    sentences = list(source.read_sentences(source.default_path(), limit=1000))
    assert [s.id for s in sentences] == list(range(1, 1001))
    # Paragraph 4 is one sentence ending in 。 and a photo caption in brackets.
    para4 = [s for s in sentences if s.para == 4]
    assert [s.text for s in para4] == [
        "１２月３１日，中共中央总书记、国家主席江泽民发表１９９８年新年讲话《迈向充满希望的新世纪》。",
        "（新华社记者兰红光摄）",
    ]
    for s in sentences:
        inner = s.words[:-1]
        assert not any(
            w in source.SENTENCE_FINAL and t == "w" and s.words[i + 1] not in source.CLOSING
            for i, (w, t) in enumerate(zip(inner, s.tags, strict=False))
        ), s.text


def test_the_loaded_tables_follow_the_contract(client: Client) -> None:
    assert Sentence.objects.count() == CORPUS_LIMIT
    assert CorpusLoad.objects.get().sentences == CORPUS_LIMIT
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, para, text, n_tokens FROM corpus_sentence WHERE id = 1000")
        sid, para, text, n_tokens = cursor.fetchone()
        cursor.execute(
            "SELECT word, pos FROM corpus_token WHERE sentence_id = %s ORDER BY position",
            [sid],
        )
        tokens = cursor.fetchall()
    assert (sid, para) == (1000, 505)
    assert text == "第二，大力发展两岸经济合作，互补互利、共同繁荣。"
    assert n_tokens == len(tokens) == 14
    assert "".join(word for word, _ in tokens) == text
    assert tokens[3] == ("发展", "v")
    total = Token.objects.count()
    assert sum(WordFreq.objects.values_list("freq", flat=True)) == total


def test_load_corpus_is_idempotent_and_reloads_on_another_limit(client: Client) -> None:
    before = CorpusLoad.objects.get()
    assert queries.info().sentences == CORPUS_LIMIT
    again = load(CORPUS_LIMIT)
    assert "already loaded" in again
    assert "nothing to do" in again
    assert CorpusLoad.objects.get().loaded_at == before.loaded_at
    try:
        smaller = load(300)
        assert "Loaded 300 sentences" in smaller
        assert Sentence.objects.count() == 300
        assert queries.info().sentences == 300  # this process sees its own load at once
        assert Sentence.objects.order_by("-id").values_list("id", flat=True)[0] == 300
        assert WordFreq.objects.filter(word="的").get(pos="u").freq == (
            Token.objects.filter(word="的", pos="u").count()
        )
    finally:
        restored = load(CORPUS_LIMIT)
    assert f"Loaded {CORPUS_LIMIT} sentences" in restored
    assert "sentences/s" in restored  # progress lines with the rate
    assert Sentence.objects.count() == CORPUS_LIMIT
    assert Token.objects.count() == before.tokens
    with connection.cursor() as cursor:
        indexes = connection.introspection.get_constraints(cursor, "corpus_token")
    assert indexes["corpus_token_word_pos"]["columns"] == ["word", "pos", "sentence_id", "position"]


def test_a_second_load_waits_for_the_first(client: Client) -> None:
    name = f"entryeditor.load_corpus.{connection.settings_dict['NAME']}"
    # The MariaDB the test database is on: the machine's, or this process's private one.
    server = mariadb()
    holder = MySQLdb.connect(host=server.host, port=server.port, user="root")
    try:
        cursor = holder.cursor()
        cursor.execute("SELECT GET_LOCK(%s, 0)", [name])
        assert cursor.fetchone()[0] == 1
        with pytest.raises(CommandError, match="another load_corpus holds the lock"):
            call_command("load_corpus", limit=CORPUS_LIMIT, wait=0.5, stdout=io.StringIO())
        cursor.execute("SELECT RELEASE_LOCK(%s)", [name])
    finally:
        holder.close()
    assert "nothing to do" in load(CORPUS_LIMIT)
