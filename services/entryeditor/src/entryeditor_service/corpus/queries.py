"""Corpus queries: frequencies, instances, concordance lines, collocates and PMI.

Every query is index-backed: corpus_wordfreq (word, pos) for frequencies and patterns,
corpus_token (word, pos, sentence_id, position) for occurrences, and
(sentence_id, position) for the window around each occurrence.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import QuerySet, Sum

from entryeditor_service.corpus.models import CorpusLoad, Sentence, Token, WordFreq
from entryeditor_service.corpus.patterns import Pattern

MAX_FORMS = 200  # forms a wildcard pattern may expand to
INFO_TTL = 5.0  # seconds a process trusts its copy of the load record


@dataclass(frozen=True)
class CorpusInfo:
    tokens: int
    sentences: int
    generation: str  # changes with every load


_info: tuple[float, CorpusInfo] | None = None


def info() -> CorpusInfo:
    """What is loaded (from corpus_load), re-read at most every INFO_TTL seconds."""
    global _info
    now = time.monotonic()
    if _info is None or now - _info[0] > INFO_TTL:
        row = CorpusLoad.objects.filter(pk=1).first()
        if row is None:
            value = CorpusInfo(0, 0, "empty")
        else:
            generation = f"{row.digest[:16]}.{row.limit}.{row.loaded_at.timestamp():.0f}"
            value = CorpusInfo(row.tokens, row.sentences, generation)
        _info = (now, value)
    return _info[1]


def forget_info() -> None:
    """Drop this process's copy of the load record (the process has just loaded a corpus)."""
    global _info
    _info = None


def per_million(count: int, tokens: int) -> float:
    return round(count * 1_000_000 / tokens, 3) if tokens else 0.0


def _matching(pattern: Pattern) -> QuerySet[WordFreq]:
    rows = WordFreq.objects.all()
    if pattern.is_wildcard:
        if pattern.prefix:
            rows = rows.filter(word__startswith=pattern.prefix)
        rows = rows.filter(word__regex=pattern.regex())
    else:
        rows = rows.filter(word=pattern.word)
    if pattern.pos is not None:
        rows = rows.filter(pos=pattern.pos)
    return rows


def forms(pattern: Pattern, limit: int = MAX_FORMS) -> list[dict[str, Any]]:
    """The (word, pos, freq) that `pattern` matches, most frequent first."""
    rows = _matching(pattern).order_by("-freq", "word", "pos")
    return [dict(row) for row in rows.values("word", "pos", "freq")[:limit]]


def total(pattern: Pattern) -> int:
    """Occurrences of everything `pattern` matches (not capped at MAX_FORMS)."""
    return _matching(pattern).aggregate(n=Sum("freq"))["n"] or 0


def freq(pattern: Pattern, limit: int = 20) -> dict[str, Any]:
    corpus = info()
    count = total(pattern)
    return {
        "pattern": str(pattern),
        "count": count,
        "per_million": per_million(count, corpus.tokens),
        "tokens": corpus.tokens,
        "forms": forms(pattern, limit),
    }


def count(word: str, pos: str | None) -> dict[str, Any]:
    """Frequency of a word (of one POS, or of each)."""
    corpus = info()
    rows = WordFreq.objects.filter(word=word)
    if pos is not None:
        rows = rows.filter(pos=pos)
    counts = list(rows.order_by("-freq", "pos").values_list("pos", "freq"))
    by_pos = [{"pos": p, "count": f} for p, f in counts]
    n = sum(f for _, f in counts)
    return {
        "word": word,
        "pos": pos,
        "count": n,
        "per_million": per_million(n, corpus.tokens),
        "tokens": corpus.tokens,
        "by_pos": by_pos,
    }


def _occurrences(pattern: Pattern) -> QuerySet[Token]:
    words = [form["word"] for form in forms(pattern)] if pattern.is_wildcard else [pattern.word]
    tokens = Token.objects.filter(word__in=sorted(set(words)))
    if pattern.pos is not None:
        tokens = tokens.filter(pos=pattern.pos)
    return tokens


def instances(word: str, pos: str | None, limit: int, offset: int) -> dict[str, Any]:
    """Sentences in which the word occurs, in corpus order, with the word's position."""
    pattern = Pattern(word, pos)
    rows = (
        _occurrences(pattern)
        .order_by("sentence_id", "position")
        .values_list("sentence_id", "position", "pos", "sentence__para", "sentence__text")
    )[offset : offset + limit]
    counted = count(word, pos)
    return {
        "word": word,
        "pos": pos,
        "count": counted["count"],
        "offset": offset,
        "limit": limit,
        "instances": [
            {"sentence_id": sid, "position": position, "pos": p, "para": para, "text": text}
            for sid, position, p, para, text in rows
        ],
    }


def kwic(pattern: Pattern, window: int, limit: int) -> dict[str, Any]:
    """Concordance lines: `window` words either side of each occurrence, in corpus order."""
    hits = list(
        _occurrences(pattern)
        .order_by("sentence_id", "position")
        .values_list("sentence_id", "position", "word", "pos")[:limit]
    )
    sentence_ids = sorted({sid for sid, *_ in hits})
    words: dict[int, list[str]] = {sid: [] for sid in sentence_ids}
    for sid, word in (
        Token.objects.filter(sentence_id__in=sentence_ids)
        .order_by("sentence_id", "position")
        .values_list("sentence_id", "word")
    ):
        words[sid].append(word)
    lines = []
    for sid, position, word, pos in hits:
        sentence = words[sid]
        lines.append(
            {
                "sentence_id": sid,
                "position": position,
                "left": "".join(sentence[max(0, position - window) : position]),
                "keyword": word,
                "pos": pos,
                "right": "".join(sentence[position + 1 : position + 1 + window]),
            }
        )
    return {"pattern": str(pattern), "window": window, "count": total(pattern), "lines": lines}


COLLOCATES_SQL = """
SELECT c.word, c.pos, c.n, f.freq FROM (
    SELECT n.word AS word, n.pos AS pos, COUNT(*) AS n
    FROM corpus_token t
    JOIN corpus_token n ON n.sentence_id = t.sentence_id
        AND n.position BETWEEN t.position - %s AND t.position + %s
        AND n.position <> t.position
    WHERE t.word IN ({words}) {pos_filter} AND n.pos <> 'w'
    GROUP BY n.word, n.pos
    HAVING COUNT(*) >= %s
) c JOIN corpus_wordfreq f ON f.word = c.word AND f.pos = c.pos
"""


def collocates(
    pattern: Pattern, window: int, min_count: int, measure: str, limit: int
) -> dict[str, Any]:
    """Words within `window` of the pattern's occurrences (punctuation left out), with
    co-occurrence count and PMI = log2(count * N / (freq(node) * freq(collocate)))."""
    corpus = info()
    matched = forms(pattern)
    node_freq = sum(form["freq"] for form in matched)
    words = sorted({form["word"] for form in matched})
    items: list[dict[str, Any]] = []
    if words:
        sql = COLLOCATES_SQL.format(
            words=", ".join(["%s"] * len(words)),
            pos_filter="" if pattern.pos is None else "AND t.pos = %s",
        )
        params: list[Any] = [window, window, *words]
        if pattern.pos is not None:
            params.append(pattern.pos)
        params.append(min_count)
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        for word, pos, n, f in rows:
            pmi = math.log2(n * corpus.tokens / (node_freq * f)) if node_freq and f else 0.0
            items.append({"word": word, "pos": pos, "count": n, "freq": f, "pmi": round(pmi, 4)})
    if measure == "count":
        items.sort(key=lambda item: (-item["count"], -item["pmi"], item["word"], item["pos"]))
    else:
        items.sort(key=lambda item: (-item["pmi"], -item["count"], item["word"], item["pos"]))
    return {
        "pattern": str(pattern),
        "window": window,
        "min_count": min_count,
        "measure": measure,
        "node_freq": node_freq,
        "tokens": corpus.tokens,
        "collocates": items[:limit],
    }


def sentence(sentence_id: int) -> dict[str, Any] | None:
    row = Sentence.objects.filter(pk=sentence_id).values("id", "para", "text", "n_tokens").first()
    if row is None:
        return None
    tokens = [
        {"word": word, "pos": pos}
        for word, pos in Token.objects.filter(sentence_id=sentence_id)
        .order_by("position")
        .values_list("word", "pos")
    ]
    return {**row, "tokens": tokens}
