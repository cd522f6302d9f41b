"""The one way a report writes a markdown table: tabulate's GitHub format, every cell
taken as written (no number parsing), a `|` inside a cell escaped."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tabulate import tabulate


def table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> list[str]:
    """The table's lines, then one blank line."""
    cells = [[str(cell).replace("|", "\\|") for cell in row] for row in rows]
    text = tabulate(cells, headers=list(header), tablefmt="github", disable_numparse=True)
    return [*text.splitlines(), ""]
