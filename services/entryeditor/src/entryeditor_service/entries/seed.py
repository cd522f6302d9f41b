"""Demo entries for the write-up's requests: ids 22 and 45 (two edits of 必须, compared by
`diff`), 47 (水, read by the detail benchmark), 51 (必须, re-initialised by `init`), and the
corpus's most frequent content words at the other ids, so the list has pages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from entryeditor_service.corpus.models import WordFreq
from entryeditor_service.entries import builder, store

CONTENT_POS = ("n", "v", "vn", "a")
BIXU_DEFINITION = "表示事理上或情理上必要；一定要。"


def _bixu_22() -> dict[str, Any]:
    data = builder.from_corpus("必须")
    data["senses"] = [{"pos": "d", "definition": BIXU_DEFINITION, "examples": []}]
    data["senses"][0]["examples"] = [e["text"] for e in data["examples"][:2]]
    return data


def _bixu_45() -> dict[str, Any]:
    data = _bixu_22()
    data["senses"][0]["definition"] = "副词。表示一定要，必不可少；否定式是“不必”或“无须”。"
    data["senses"][0]["examples"] = data["senses"][0]["examples"][:1]
    data["examples"] = data["examples"][1:]
    return data


def _shui_47() -> dict[str, Any]:
    data = builder.from_corpus("水")
    for sense in data["senses"]:
        if sense["pos"] == "n":
            sense["definition"] = "无色、无味、透明的液体，江河湖海里的水。"
    return data


DEMO: dict[int, Callable[[], dict[str, Any]]] = {
    22: _bixu_22,
    45: _bixu_45,
    47: _shui_47,
    51: lambda: builder.from_corpus("必须"),
}


def frequent_words(count: int, exclude: set[str]) -> list[str]:
    """The `count` most frequent content words (nouns, verbs, adjectives)."""
    words: list[str] = []
    rows = (
        WordFreq.objects.filter(pos__in=CONTENT_POS)
        .order_by("-freq", "word")
        .values_list("word", flat=True)
    )
    for word in rows[: count * 3]:
        if word not in exclude and word not in words:
            words.append(word)
        if len(words) == count:
            break
    return words


def seed(count: int, progress: Callable[[str], None]) -> list[int]:
    """Write entries 1..count (the demo ids among them), replacing what is there."""
    ids = list(range(1, count + 1))
    others = [pk for pk in ids if pk not in DEMO]
    words = frequent_words(len(others), {"必须", "水"})
    for pk, word in zip(others, words, strict=False):
        store.put(pk, builder.from_corpus(word), None)
    for pk, make in DEMO.items():
        store.put(pk, make(), None)
        progress(f"  entry {pk}: demo")
    return sorted(set(others[: len(words)]) | set(DEMO))
