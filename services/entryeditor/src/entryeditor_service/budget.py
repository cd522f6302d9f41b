"""The database connection budget.

Every uWSGI/gunicorn thread keeps up to one connection (CONN_MAX_AGE), the compute service
keeps its pool, and management commands need a few more:

    WEB_CONCURRENCY x WEB_THREADS + COMPUTE_DB_POOL + DB_CONNECTION_MARGIN <= max_connections

A budget over the server's `max_connections` is what made the write-up's MySQL answer
"Too many connections"; here it fails `check --database default`, `migrate` and /readyz.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks
from django.db import connections


@dataclass(frozen=True)
class Budget:
    processes: int
    threads: int
    compute_pool: int
    margin: int

    @classmethod
    def from_settings(cls) -> Budget:
        return cls(
            settings.WEB_CONCURRENCY,
            settings.WEB_THREADS,
            settings.COMPUTE_DB_POOL,
            settings.DB_CONNECTION_MARGIN,
        )

    @property
    def total(self) -> int:
        return self.processes * self.threads + self.compute_pool + self.margin

    def describe(self) -> str:
        return (
            f"WEB_CONCURRENCY x WEB_THREADS + COMPUTE_DB_POOL + DB_CONNECTION_MARGIN = "
            f"{self.processes} x {self.threads} + {self.compute_pool} + {self.margin} "
            f"= {self.total}"
        )

    def problem(self, max_connections: int) -> str | None:
        """None when the budget fits, else what is wrong and what to change."""
        if self.total <= max_connections:
            return None
        return (
            f"connection budget {self.describe()} exceeds the database's max_connections "
            f"{max_connections}: lower WEB_CONCURRENCY/WEB_THREADS/COMPUTE_DB_POOL or raise "
            "max_connections"
        )


def max_connections(alias: str = "default") -> int | None:
    """The server's @@max_connections, or None for a database without one (SQLite).
    Either way a query runs, so this also says whether the database answers."""
    connection = connections[alias]
    query = "SELECT @@max_connections" if connection.vendor == "mysql" else "SELECT NULL"
    with connection.cursor() as cursor:
        cursor.execute(query)
        value = cursor.fetchone()[0]
    return None if value is None else int(value)


def check_budget(
    app_configs: Sequence[AppConfig] | None = None,
    databases: Sequence[str] | None = None,
    **kwargs: Any,
) -> list[checks.CheckMessage]:
    if not databases or "default" not in databases:
        return []
    try:
        limit = max_connections()
    except Exception as exc:  # the database is down or refuses us: say so, do not crash
        return [
            checks.Warning(
                f"cannot read max_connections to check the connection budget: {exc}",
                id="entryeditor.W001",
            )
        ]
    problem = None if limit is None else Budget.from_settings().problem(limit)
    if problem is None:
        return []
    return [checks.Error(problem, id="entryeditor.E001")]


def register() -> None:
    checks.register(check_budget, checks.Tags.database)
