"""The execute query language: the grammar, its validation, and where errors point."""

from __future__ import annotations

import pytest

from entryeditor_service.corpus.patterns import Pattern
from entryeditor_service.entries.querylang import CommandError, parse


@pytest.mark.parametrize(
    ("text", "name", "args"),
    [
        ("freq(pattern=水)", "freq", {"pattern": Pattern("水"), "limit": 20}),
        ("freq()", "freq", {"pattern": Pattern("必须"), "limit": 20}),
        (
            " kwic( pattern = 发展/v ,window=3, limit=7 ) ",
            "kwic",
            {"pattern": Pattern("发展", "v"), "window": 3, "limit": 7},
        ),
        (
            'collocates(pattern="经济*", measure=count)',
            "collocates",
            {
                "pattern": Pattern("经济*"),
                "window": 5,
                "measure": "count",
                "min_count": 3,
                "limit": 20,
            },
        ),
        (
            "freq(\n  pattern=水/n,\n  limit=5\n)",
            "freq",
            {"pattern": Pattern("水", "n"), "limit": 5},
        ),
    ],
)
def test_good_commands(text: str, name: str, args: dict[str, object]) -> None:
    command = parse(text, default_word="必须")
    assert command.name == name
    assert command.args == args


@pytest.mark.parametrize(
    ("text", "line", "column", "message"),
    [
        ("", 1, 1, "empty command"),
        ("freq(pattern=水", 1, 15, "unexpected end of command, expected ')' or ','"),
        ("freq(pattern=水))", 1, 16, "unexpected ')'"),
        ("freq pattern=水", 1, 6, "unexpected 'pattern', expected '('"),
        ("freq(pattern==)", 1, 14, "unexpected '='"),
        ("freq(pattern=水 limit=3)", 1, 16, "unexpected 'limit'"),
        ("freq(;)", 1, 6, "unexpected ';', expected ')' or a name"),
        ("frq(pattern=水)", 1, 1, "unknown command 'frq'"),
        ("freq(patern=水)", 1, 6, "freq() has no argument 'patern'"),
        ("freq(pattern=水, pattern=火)", 1, 17, "argument 'pattern' given twice"),
        ("kwic(pattern=水, window=x)", 1, 24, "window: expected an integer"),
        ("kwic(pattern=水, window=21)", 1, 24, "window: must be from 1 to 20, got 21"),
        ("collocates(measure=dice)", 1, 20, "measure: must be one of pmi, count"),
        ("freq(pattern=水/名)", 1, 14, "pattern: the POS tag must be"),
        ("freq(pattern=*)", 1, 14, "pattern: a pattern needs at least one character"),
        ("freq(\n  pattern=水,\n  limit=0)", 3, 9, "limit: must be from 1 to 100"),
        ('freq(pattern="水', 1, 14, "unexpected character '\"'"),
    ],
)
def test_errors_point_at_their_position(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(CommandError) as caught:
        parse(text, default_word="必须")
    error = caught.value
    assert message in error.message
    assert (error.line, error.column) == (line, column)
    source_line, marker = error.context.split("\n")
    assert source_line == text.split("\n")[line - 1]
    assert marker == " " * (column - 1) + "^"


def test_pattern_is_required_without_a_default_word() -> None:
    with pytest.raises(CommandError, match="pattern is required"):
        parse("freq()", default_word=None)


def test_nothing_is_evaluated() -> None:
    with pytest.raises(CommandError, match="unknown command '__import__'"):
        parse("__import__(pattern=os)", default_word="水")
