"""The requests the READMEs tell users to send: each curl, k6, ab, wrk or hey command of
their code blocks (fenced or indented), with the compose profiles it is meant for, so that
the tests can hold each one to what compose.yaml publishes.

An example is meant for the profiles named with `--profile` on its own line; else for
those named anywhere in its code block (`docker compose --profile gunicorn up -d` above
it); else for those the paragraph that introduces the block names (the nearest one since
the last heading or block that names any: "the `gunicorn` profile", "profile `uwsgi`",
`--profile gunicorn`); else for those the document's opening paragraphs name.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

TOOLS = frozenset({"curl", "k6", "ab", "wrk", "hey"})

_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^#{1,6} ")
_IN_CODE = re.compile(r"--profile[ =]([\w-]+)")
_IN_PROSE = re.compile(r"--profile[ =]([\w-]+)|`([\w-]+)` profile|profile `([\w-]+)`")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SEPARATORS = frozenset({"&&", "||", ";", "|", "&"})


@dataclass(frozen=True)
class Example:
    """One command of a README's code block."""

    doc: str  # the document, relative to the repository's root
    line: int  # where the command starts (1-based)
    text: str  # its line, continuation lines joined, comment included
    tool: str  # curl, k6, ab, wrk or hey
    argv: tuple[str, ...]  # the command's words, its environment assignments first
    profiles: frozenset[str]  # the compose profiles it is meant for; empty: none said

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}: {self.text.strip()}"


@dataclass(frozen=True)
class _Block:
    lines: tuple[tuple[int, str], ...]  # (line number, text)


@dataclass(frozen=True)
class _Prose:
    text: str


@dataclass(frozen=True)
class _Heading:
    level: int


_Part = _Block | _Prose | _Heading


def _parts(text: str) -> Iterator[_Part]:
    """The document as headings, paragraphs of prose (tables included) and code blocks."""
    lines = text.splitlines()
    index = 0
    paragraph: list[str] = []

    def prose() -> Iterator[_Part]:
        if paragraph:
            yield _Prose("\n".join(paragraph))
            paragraph.clear()

    while index < len(lines):
        line = lines[index]
        if _FENCE.match(line):
            yield from prose()
            index += 1
            start = index
            while index < len(lines) and not _FENCE.match(lines[index]):
                index += 1
            yield _Block(tuple((n + 1, lines[n]) for n in range(start, index)))
        elif line.startswith(("    ", "\t")) and not paragraph:
            start = index
            while index + 1 < len(lines) and (
                lines[index + 1].startswith(("    ", "\t")) or not lines[index + 1].strip()
            ):
                index += 1
            yield _Block(tuple((n + 1, lines[n]) for n in range(start, index + 1)))
        elif _HEADING.match(line):
            yield from prose()
            yield _Heading(len(line) - len(line.lstrip("#")))
        elif line.strip():
            paragraph.append(line)
        else:
            yield from prose()
        index += 1
    yield from prose()


def _named(pattern: re.Pattern[str], text: str) -> frozenset[str]:
    return frozenset(name for match in pattern.finditer(text) for name in match.groups() if name)


def _joined(block: _Block) -> Iterator[tuple[int, str]]:
    """The block's lines with continuation lines (a trailing backslash) joined."""
    start, pending = 0, ""
    for number, line in block.lines:
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        yield start, pending + line
        pending = ""
    if pending:
        yield start, pending


def _commands(text: str) -> Iterator[list[str]]:
    """The commands of a shell line, as words (comments left out)."""
    lexer = shlex.shlex(text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    words: list[str] = []
    for word in lexer:
        if word in _SEPARATORS:
            yield words
            words = []
        else:
            words.append(word)
    yield words


def _tool(argv: Sequence[str]) -> str | None:
    """The tool a command runs, past its environment assignments and `uv run`."""
    words = list(argv)
    while words and _ASSIGNMENT.match(words[0]):
        words.pop(0)
    if words[:2] == ["uv", "run"]:
        words = words[2:]
    if not words:
        return None
    program = words[0].rsplit("/", 1)[-1]
    if program == "k6" and words[1:2] != ["run"]:
        return None
    return program if program in TOOLS else None


def documents(root: Path) -> list[str]:
    """The documents that print examples: the READMEs and the guides under docs/."""
    found = [root / "README.md", root / "loadtests" / "README.md"]
    found += sorted(root.glob("services/*/README.md")) + sorted(root.glob("docs/*.md"))
    return [str(path.relative_to(root)) for path in found]


def examples(root: Path, doc: str) -> list[Example]:
    """Every example of `doc` (a path relative to `root`), in the order it prints them."""
    parts = list(_parts((root / doc).read_text()))
    first_heading = next(
        (i for i, part in enumerate(parts) if isinstance(part, _Heading) and part.level > 1),
        len(parts),
    )
    opening = [part.text for part in parts[:first_heading] if isinstance(part, _Prose)]
    lead = _named(_IN_PROSE, "\n".join(opening))
    found: list[Example] = []
    introduced: frozenset[str] = frozenset()
    for part in parts:
        if isinstance(part, _Heading):
            introduced = frozenset()
        elif isinstance(part, _Prose):
            introduced = _named(_IN_PROSE, part.text) or introduced
        else:
            in_block = _named(_IN_CODE, "\n".join(line for _, line in part.lines))
            for number, line in _joined(part):
                try:
                    commands = list(_commands(line))
                except ValueError:  # not shell: an answer the block shows
                    continue
                for argv in commands:
                    tool = _tool(argv)
                    if tool is None:
                        continue
                    profiles = _named(_IN_CODE, line) or in_block or introduced or lead
                    found.append(Example(doc, number, line, tool, tuple(argv), profiles))
            introduced = frozenset()
    return found
