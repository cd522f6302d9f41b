"""Markdown as the tests read it: every table row's cells without their padding."""

from __future__ import annotations

import re


def unpadded(text: str) -> str:
    """`text` with each table row's cells stripped, so that a test reads what a table says,
    not how wide its columns are (a separator row reads `|---|---|`)."""
    lines = []
    for line in text.splitlines():
        if line.startswith("|") and line.endswith("|"):
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
            dashes = all(set(cell) == {"-"} for cell in cells)
            line = "|---" * len(cells) + "|" if dashes else "| " + " | ".join(cells) + " |"
        lines.append(line)
    return "\n".join(lines) + "\n"
