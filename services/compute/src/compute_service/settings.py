"""Service settings, read once from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Literal, get_args

ServerKind = Literal["threadpool", "processpool", "nonblocking", "forking"]

_PREFIX = "COMPUTE_"


class SettingsError(ValueError):
    """An environment variable holds a value the service cannot use."""


@dataclass(frozen=True)
class Settings:
    """Each field is read from COMPUTE_<FIELD> (upper case), DATABASE_URL for the database."""

    database_url: str = "mysql://root@127.0.0.1:3306/entryeditor"
    host: str = "127.0.0.1"
    port: int = 9090
    # The Thrift server (README: the nonblocking one serves any number of client
    # connections with `threads` workers, as fast as the others or faster).
    server: ServerKind = "nonblocking"
    # Worker threads (nonblocking) or threads serving one connection each (threadpool).
    threads: int = 4
    # Processes serving one connection each (processpool).
    processes: int = 2
    # Database connections the service may hold at most, per process; counted in the
    # entry editor's connection budget. A request waits up to db_wait_s for one.
    db_pool: int = 4
    db_wait_s: float = 2.0
    db_timeout_s: float = 5.0
    model_dir: Path = Path(".servelab/compute-models")
    max_k: int = 100
    max_batch: int = 256
    # Word2Vec training: fixed seed and one worker thread make the build reproducible.
    dimensions: int = 100
    window: int = 5
    min_count: int = 2
    epochs: int = 5
    seed: int = 1

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for field in fields(cls):
            name = "DATABASE_URL" if field.name == "database_url" else _PREFIX + field.name.upper()
            if name in env:
                values[field.name] = _convert(name, env[name], field.default)
        settings = cls(**values)  # type: ignore[arg-type]
        settings.validate()
        return settings

    def validate(self) -> None:
        if self.server not in get_args(ServerKind):
            raise SettingsError(
                f"COMPUTE_SERVER={self.server!r}: one of {', '.join(get_args(ServerKind))}"
            )
        for name in ("port", "threads", "processes", "db_pool", "max_k", "max_batch"):
            if getattr(self, name) < 1:
                raise SettingsError(f"{_PREFIX}{name.upper()} must be at least 1")


def _convert(name: str, raw: str, default: object) -> object:
    try:
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
    except ValueError as error:
        raise SettingsError(f"{name}={raw!r} is not a number") from error
    if isinstance(default, Path):
        return Path(raw)
    return raw
