"""Word patterns: `水`, `水/n`, `水*`, `*水/n` (`*` matches any characters, `/POS` a tag)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from entryeditor_service.corpus.source import MAX_POS, MAX_WORD

POS_RE = re.compile(rf"[A-Za-z]{{1,{MAX_POS}}}")


class PatternError(ValueError):
    pass


def check_word(word: str) -> str:
    if not word:
        raise PatternError("the word is empty")
    if len(word) > MAX_WORD:
        raise PatternError(f"the word is longer than {MAX_WORD} characters")
    if any(ch.isspace() for ch in word):
        raise PatternError("the word contains whitespace")
    return word


def check_pos(pos: str) -> str:
    if not POS_RE.fullmatch(pos):
        raise PatternError(f"the POS tag must be 1 to {MAX_POS} ASCII letters (e.g. n, v, vn)")
    return pos


@dataclass(frozen=True)
class Pattern:
    word: str
    pos: str | None = None

    @classmethod
    def parse(cls, text: str) -> Pattern:
        word, slash, pos = text.rpartition("/")
        if not slash or not word:
            word, pos = text, ""
        word = check_word(word)
        if word.strip("*") == "":
            raise PatternError("a pattern needs at least one character besides '*'")
        return cls(word, check_pos(pos) if slash and pos else None)

    @property
    def is_wildcard(self) -> bool:
        return "*" in self.word

    @property
    def prefix(self) -> str:
        """The literal characters before the first `*` (an index range)."""
        return self.word.split("*", 1)[0]

    def regex(self) -> str:
        return "^" + ".*".join(re.escape(part) for part in self.word.split("*")) + "$"

    def __str__(self) -> str:
        return self.word if self.pos is None else f"{self.word}/{self.pos}"
