"""What `init` writes into an entry: the word's corpus profile, or nothing."""

from __future__ import annotations

from typing import Any

from entryeditor_service.corpus import cached, queries
from entryeditor_service.corpus.patterns import Pattern
from entryeditor_service.entries.store import BLANK

EXAMPLES = 5  # example sentences of the entry
SENSES = 3  # senses drafted, one per most frequent POS
SENSE_EXAMPLES = 2  # examples per drafted sense
COLLOCATES = 10
WINDOW = 5
MIN_COUNT = 3


def empty(word: str) -> dict[str, Any]:
    return {**BLANK, "word": word}


def from_corpus(word: str) -> dict[str, Any]:
    """Frequency, POS distribution, example sentences, a draft sense per main POS (with
    examples of that POS, definition left to the editor) and the top collocates by PMI."""
    counted = queries.count(word, None)
    by_pos = counted["by_pos"]
    examples = queries.instances(word, None, EXAMPLES, 0)["instances"]
    senses = []
    for item in by_pos[:SENSES]:
        sense_examples = queries.instances(word, item["pos"], SENSE_EXAMPLES, 0)["instances"]
        senses.append(
            {
                "pos": item["pos"],
                "definition": "",
                "examples": [instance["text"] for instance in sense_examples],
            }
        )
    collocates, _ = cached.collocates(Pattern(word), WINDOW, MIN_COUNT, "pmi", COLLOCATES)
    return {
        "word": word,
        "pos": by_pos[0]["pos"] if by_pos else "",
        "senses": senses,
        "frequency": counted["count"],
        "pos_distribution": {item["pos"]: item["count"] for item in by_pos},
        "examples": [{"sentence_id": i["sentence_id"], "text": i["text"]} for i in examples],
        "collocates": collocates["collocates"],
    }
