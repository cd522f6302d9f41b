"""Exact (binary) string comparison on MariaDB/MySQL, whatever the database's default.

Words must compare byte for byte: under the usual *_general_ci collations `Ａ`/`A`/`a`
would be one word and the (word, pos) unique key of the frequency table would break.
SQLite compares bytes already.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def binary_tables(*tables: str) -> Callable[[Any, Any], None]:
    """A RunPython operation that converts `tables` to utf8mb4_bin on MySQL."""

    def convert(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor != "mysql":
            return
        for table in tables:
            schema_editor.execute(
                f"ALTER TABLE {schema_editor.quote_name(table)} "
                "CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin"
            )

    return convert
