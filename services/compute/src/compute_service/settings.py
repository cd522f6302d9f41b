"""Service settings, read once from the environment: COMPUTE_<FIELD> (upper case) for each
field, DATABASE_URL for the database and DATABASE_PASSWORD_FILE for its user's password (a
compose secret or a mounted Kubernetes Secret, as the entry editor reads it)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from pydantic import AliasChoices, Field, ValidationError, model_validator
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, SettingsConfigDict

from compute_contract import ServerKind
from compute_service.pool import MySQLAddress

PREFIX = "COMPUTE_"


class SettingsError(ValueError):
    """An environment variable holds a value the service cannot use."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=PREFIX, frozen=True)

    database_url: str = Field(
        "mysql://root@127.0.0.1:3306/entryeditor",
        validation_alias=AliasChoices("DATABASE_URL"),
        repr=False,
    )
    # The file holding the password of DATABASE_URL's user (it replaces one in the URL).
    database_password_file: Path | None = Field(
        None, validation_alias=AliasChoices("DATABASE_PASSWORD_FILE")
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

    @model_validator(mode="after")
    def _password_file_readable(self) -> Settings:
        if self.database_password_file is not None:
            _read_password(self.database_password_file)
        return self

    def database_address(self) -> MySQLAddress:
        """DATABASE_URL's server, user and database, with the password from
        DATABASE_PASSWORD_FILE where it names one."""
        address = MySQLAddress.parse(self.database_url)
        if self.database_password_file is None:
            return address
        return replace(address, password=_read_password(self.database_password_file))

    @classmethod
    def from_env(cls) -> Settings:
        """The settings, or SettingsError naming the variable and what it must hold."""
        try:
            return cls()
        except ValidationError as error:
            raise SettingsError("; ".join(_describe(e) for e in error.errors())) from None


def _read_password(path: Path) -> str:
    try:
        password = path.read_text(encoding="utf-8").strip()
    except OSError as error:
        raise ValueError(f"{path}: {error.strerror}") from None
    if not password:
        raise ValueError(f"{path} is empty")
    return password


_ALIASES = {
    "database_url": "DATABASE_URL",
    "DATABASE_URL": "DATABASE_URL",
    "database_password_file": "DATABASE_PASSWORD_FILE",
    "DATABASE_PASSWORD_FILE": "DATABASE_PASSWORD_FILE",
}


def _describe(error: ErrorDetails) -> str:
    """One pydantic error as `VARIABLE='value': what is wrong`."""
    field = str(error["loc"][0]) if error["loc"] else "DATABASE_PASSWORD_FILE"
    name = _ALIASES.get(field, PREFIX + field.upper())
    problem = "not a number" if error["type"] in {"int_parsing", "float_parsing"} else error["msg"]
    return f"{name}={error.get('input')!r}: {problem}"
