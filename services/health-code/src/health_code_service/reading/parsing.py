"""Recognised lines -> the fields of each usage (names, times, phones, cities, results)."""

import re
from collections.abc import Sequence
from datetime import datetime

from health_code_service.reading.text import Line

_FULLWIDTH = str.maketrans("０１２３４５６７８９：＊－／．，、　", "0123456789:*-/.,, ")
_DATE = r"(20\d\d)\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})\s*日?"
_CLOCK = r"(\d{1,2})\s*[:：]\s*(\d{2})(?:\s*[:：]\s*(\d{2}))?"
DATETIME = re.compile(_DATE + r"\s*" + _CLOCK)
DATE = re.compile(_DATE)
CLOCK = re.compile(_CLOCK)
# A hidden character of a masked name, as the apps draw it and as the recogniser reads it:
# `*` (the full-width `＊` is normalised to it), `×`, and `x`/`X`, which is how `×` is often
# read (a Chinese name holds no Latin letter, so next to CJK it can only be a mask).
MASKS = "*×xX"
# One to three hidden characters, at most three shown ones on either side (欧阳**, 张*明,
# *明, **明, 司马*明); `find_name` also wants at least one shown character.
NAME = re.compile(r"([\u4e00-\u9fff]{0,3})([" + MASKS + r"]{1,3})([\u4e00-\u9fff]{0,3})")
# Spaces the recogniser puts before a hidden character (欧阳 * *), never after the last one
# (张* 切换 is a name and a button).
_MASK_SPACES = re.compile(r"(?<=[" + MASKS + r"\u4e00-\u9fff])\s+(?=[" + MASKS + r"])")
PHONE = re.compile(r"(1\d{2})\s*\*+\s*(\d{4})")


def normalise(text: str) -> str:
    return text.translate(_FULLWIDTH).strip()


def rows(lines: Sequence[Line]) -> list[str]:
    """Lines that share a baseline joined left to right (label and value boxes of one row)."""
    grouped: list[list[Line]] = []
    for line in sorted(lines, key=lambda line: (line.top + line.bottom) / 2):
        centre = (line.top + line.bottom) / 2
        if grouped:
            last = grouped[-1][-1]
            if last.top <= centre <= last.bottom:
                grouped[-1].append(line)
                continue
        grouped.append([line])
    return [
        normalise(" ".join(line.text for line in sorted(row, key=lambda item: item.left)))
        for row in grouped
    ]


def _moment(match: re.Match[str]) -> datetime | None:
    year, month, day, hour, minute, second = (int(g) if g else 0 for g in match.groups())
    try:
        return datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None


def find_time(texts: Sequence[str]) -> datetime | None:
    """The first date and time in `texts`; a date row followed by a time-only row also counts."""
    for i, text in enumerate(texts):
        if match := DATETIME.search(text):
            return _moment(match)
        date = DATE.search(text)
        if date and i + 1 < len(texts) and (clock := CLOCK.fullmatch(texts[i + 1].strip())):
            joined = DATETIME.search(f"{date.group(0)} {clock.group(0)}")
            return _moment(joined) if joined else None
    return None


def find_name(texts: Sequence[str]) -> str | None:
    """A masked name, alone in its box or after 姓名, with every hidden character as `*`:
    one to three hidden characters anywhere in a name of one to three shown ones."""
    for text in texts:
        for token in _MASK_SPACES.sub("", text).split():
            value = token.split("姓名", 1)[-1].lstrip(":")
            match = NAME.fullmatch(value)
            if match and (match.group(1) or match.group(3)):
                shown, hidden, rest = match.groups()
                return shown + "*" * len(hidden) + rest
    return None


def find_phone(texts: Sequence[str]) -> str | None:
    for text in texts:
        if match := PHONE.search(text):
            return f"{match.group(1)}****{match.group(2)}"
    return None


def labelled(texts: Sequence[str], label: str) -> list[str]:
    """The text after `label` on its row, then the rows below it (a value under its label)."""
    for i, text in enumerate(texts):
        if label in text:
            rest = text.split(label, 1)[1].lstrip(": ")
            return [rest, *texts[i + 1 :]] if rest else list(texts[i + 1 :])
    return []
