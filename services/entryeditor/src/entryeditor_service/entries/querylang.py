"""The `execute` query language, parsed by a lark grammar (never eval):

    freq(pattern=水)
    kwic(pattern=发展/v, window=5, limit=20)
    collocates(pattern="必须", window=5, measure=pmi, limit=20)

A pattern is a word, optionally `/POS`, with `*` for any characters; it defaults to the
entry's word. Every error carries its line, column and a caret under the offending spot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from entryeditor_service.corpus.patterns import Pattern, PatternError

GRAMMAR = r"""
    start: NAME "(" [arg ("," arg)*] ")"
    arg: NAME "=" (WORD | ESCAPED_STRING)

    NAME: /[A-Za-z_][A-Za-z0-9_]*/
    WORD: /[^\s,()="]+/

    %import common.ESCAPED_STRING
    %import common.WS
    %ignore WS
"""
PARSER = Lark(GRAMMAR, parser="lalr", maybe_placeholders=False)

# How the grammar's terminals read in an error message.
TERMINALS = {
    "NAME": "a name",
    "WORD": "a value",
    "ESCAPED_STRING": "a quoted value",
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "EQUAL": "'='",
    "$END": "the end",
    "<END-OF-FILE>": "the end of the command",
}


class CommandError(ValueError):
    """A bad command, with where it went wrong (1-based line and column)."""

    def __init__(self, message: str, text: str, line: int, column: int) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.context = caret(text, line, column)

    def details(self) -> dict[str, Any]:
        return {"line": self.line, "column": self.column, "context": self.context}


def caret(text: str, line: int, column: int) -> str:
    """The line of `text` and a caret under `column`."""
    lines = text.split("\n")
    source = lines[line - 1] if 0 < line <= len(lines) else ""
    return f"{source}\n{' ' * (column - 1)}^"


def end_of(text: str) -> tuple[int, int]:
    lines = text.split("\n")
    return len(lines), len(lines[-1]) + 1


@dataclass(frozen=True)
class Param:
    kind: str  # "pattern" | "int" | "choice"
    default: Any = None
    low: int = 1
    high: int = 100
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Command:
    name: str
    args: dict[str, Any] = field(default_factory=dict)


SPECS: dict[str, dict[str, Param]] = {
    "freq": {"pattern": Param("pattern"), "limit": Param("int", 20, 1, 100)},
    "kwic": {
        "pattern": Param("pattern"),
        "window": Param("int", 5, 1, 20),
        "limit": Param("int", 20, 1, 100),
    },
    "collocates": {
        "pattern": Param("pattern"),
        "window": Param("int", 5, 1, 10),
        "measure": Param("choice", "pmi", choices=("pmi", "count")),
        "min_count": Param("int", 3, 1, 1000),
        "limit": Param("int", 20, 1, 100),
    },
}


def _syntax_error(exc: UnexpectedInput, text: str) -> CommandError:
    if isinstance(exc, UnexpectedEOF) or (
        isinstance(exc, UnexpectedToken) and exc.token.type == "$END"
    ):
        expected = sorted(TERMINALS.get(name, name) for name in exc.expected)
        line, column = end_of(text)
        return CommandError(
            f"unexpected end of command, expected {' or '.join(expected)}", text, line, column
        )
    if isinstance(exc, UnexpectedToken):
        expected = sorted(TERMINALS.get(name, name) for name in exc.expected)
        return CommandError(
            f"unexpected {exc.token.value!r}, expected {' or '.join(expected)}",
            text,
            exc.line,
            exc.column,
        )
    assert isinstance(exc, UnexpectedCharacters)
    return CommandError(f"unexpected character {exc.char!r}", text, exc.line, exc.column)


def _value(token: Token, param: Param, name: str, text: str) -> Any:
    raw = token.value
    if token.type == "ESCAPED_STRING":
        raw = raw[1:-1].replace('\\"', '"').replace("\\\\", "\\")

    def fail(message: str) -> CommandError:
        return CommandError(f"{name}: {message}", text, token.line or 1, token.column or 1)

    if param.kind == "pattern":
        try:
            return Pattern.parse(raw)
        except PatternError as exc:
            raise fail(str(exc)) from None
    if param.kind == "int":
        if not raw.isascii() or not raw.isdigit():
            raise fail(f"expected an integer from {param.low} to {param.high}, got {raw!r}")
        number = int(raw)
        if not param.low <= number <= param.high:
            raise fail(f"must be from {param.low} to {param.high}, got {number}")
        return number
    if raw not in param.choices:
        raise fail(f"must be one of {', '.join(param.choices)}, got {raw!r}")
    return raw


def parse(text: str, default_word: str | None = None) -> Command:
    """The command in `text`, validated against SPECS (CommandError otherwise)."""
    if not text.strip():
        raise CommandError("empty command, expected e.g. freq(pattern=水)", text, 1, 1)
    try:
        tree = PARSER.parse(text)
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text) from None
    name_token, *arg_trees = tree.children
    assert isinstance(name_token, Token)
    spec = SPECS.get(name_token.value)
    if spec is None:
        raise CommandError(
            f"unknown command {name_token.value!r}, expected one of {', '.join(SPECS)}",
            text,
            name_token.line or 1,
            name_token.column or 1,
        )
    args: dict[str, Any] = {}
    for arg in arg_trees:
        assert isinstance(arg, Tree)
        key, value = arg.children
        assert isinstance(key, Token) and isinstance(value, Token)
        where = (text, key.line or 1, key.column or 1)
        if key.value not in spec:
            raise CommandError(
                f"{name_token.value}() has no argument {key.value!r}; it takes {', '.join(spec)}",
                *where,
            )
        if key.value in args:
            raise CommandError(f"argument {key.value!r} given twice", *where)
        args[key.value] = _value(value, spec[key.value], key.value, text)
    for arg_name, param in spec.items():
        if arg_name in args:
            continue
        if param.kind == "pattern":
            if default_word is None:
                line, column = end_of(text)
                raise CommandError("pattern is required", text, line, column)
            args[arg_name] = Pattern(default_word)
        else:
            args[arg_name] = param.default
    return Command(name_token.value, args)
