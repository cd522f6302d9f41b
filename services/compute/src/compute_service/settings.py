"""Service settings, read once from the environment: COMPUTE_<FIELD> (upper case) for each
field, DATABASE_URL for the database."""

from __future__ import annotations

from pathlib import Path

from pydantic import AliasChoices, Field, ValidationError
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, SettingsConfigDict

from compute_contract import ServerKind

PREFIX = "COMPUTE_"


class SettingsError(ValueError):
    """An environment variable holds a value the service cannot use."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, frozen=True)

    database_url: str = Field(
        "mysql://root@127.0.0.1:3306/entryeditor",
        validation_alias=AliasChoices("DATABASE_URL"),
    )
    host: str = "127.0.0.1"
    port: int = Field(9090, ge=1)
    # The Thrift server (README: the nonblocking one serves any number of client
    # connections with `threads` workers, as fast as the others or faster).
    server: ServerKind = "nonblocking"
    # Worker threads (nonblocking) or threads serving one connection each (threadpool).
    threads: int = Field(4, ge=1)
    # Processes serving one connection each (processpool).
    processes: int = Field(2, ge=1)
    # Database connections the service may hold at most, per process; counted in the
    # entry editor's connection budget. A request waits up to db_wait_s for one.
    db_pool: int = Field(4, ge=1)
    db_wait_s: float = 2.0
    db_timeout_s: float = 5.0
    model_dir: Path = Path(".servelab/compute-models")
    max_k: int = Field(100, ge=1)
    max_batch: int = Field(256, ge=1)
    # Word2Vec training: fixed seed and one worker thread make the build reproducible.
    dimensions: int = 100
    window: int = 5
    min_count: int = 2
    epochs: int = 5
    seed: int = 1

    @classmethod
    def from_env(cls) -> Settings:
        """The settings, or SettingsError naming the variable and what it must hold."""
        try:
            return cls()
        except ValidationError as error:
            raise SettingsError("; ".join(_describe(e) for e in error.errors())) from None


def _describe(error: ErrorDetails) -> str:
    """One pydantic error as `VARIABLE='value': what is wrong`."""
    field = str(error["loc"][0])
    name = "DATABASE_URL" if field in {"database_url", "DATABASE_URL"} else PREFIX + field.upper()
    problem = "not a number" if error["type"] in {"int_parsing", "float_parsing"} else error["msg"]
    return f"{name}={error.get('input')!r}: {problem}"
