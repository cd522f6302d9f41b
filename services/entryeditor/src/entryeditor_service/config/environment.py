"""Every variable the service reads, read once from the environment into one typed object
(pydantic-settings, as in the other services). config/settings.py turns it into Django's
settings; the README's settings table lists the same variables.

An empty or blank variable counts as unset (compose passes `${NAME:-}` through as "").
"""

from __future__ import annotations

from typing import Annotated, Any

from django.core.exceptions import ImproperlyConfigured
from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]"]


class Environment(BaseSettings):
    """Field names are the variables' names: case-sensitive, no prefix."""

    model_config = SettingsConfigDict(case_sensitive=True, frozen=True, str_strip_whitespace=True)

    DEBUG: bool = False
    # Each secret from its variable or from the file its `_FILE` variable names (a compose
    # secret or a mounted Kubernetes Secret: servicekit.secretfiles), never both.
    SECRET_KEY: str = Field("", repr=False)
    SECRET_KEY_FILE: str = ""
    # Comma-separated.
    ALLOWED_HOSTS: Annotated[list[str], NoDecode] = DEFAULT_ALLOWED_HOSTS
    # Largest request body in bytes (413 above it).
    MAX_BODY_SIZE: int = Field(1024 * 1024, ge=1024)

    # Database: mysql://user@host:port/name (MariaDB/MySQL), or the SQLite file SQLITE_PATH
    # when unset. The user's password: DATABASE_PASSWORD (or DATABASE_PASSWORD_FILE), which
    # replaces one the URL holds.
    DATABASE_URL: str = Field("", repr=False)
    DATABASE_PASSWORD: str = Field("", repr=False)
    DATABASE_PASSWORD_FILE: str = ""
    SQLITE_PATH: str = "entryeditor.sqlite3"
    CONN_MAX_AGE: int = Field(60, ge=0)
    DB_CONNECT_TIMEOUT: int = Field(5, ge=1)
    # Seconds each read or write to MariaDB may wait; 0: no limit.
    DB_READ_TIMEOUT: int = Field(0, ge=0)
    # Seconds (fractions allowed) a query, a ping or a new connection may wait for MariaDB
    # before the request gives up (entryeditor_service.mariadb.deadline); 0: no limit below
    # the whole-second timeouts above.
    DB_DEADLINE: float = Field(0, ge=0)
    DB_BREAKER_RESET: float = Field(1.0, gt=0)

    # The connection budget's inputs (entryeditor_service.budget).
    WEB_CONCURRENCY: int = Field(1, ge=1)
    WEB_THREADS: int = Field(1, ge=1)
    COMPUTE_DB_POOL: int = Field(4, ge=0)
    DB_CONNECTION_MARGIN: int = Field(3, ge=0)

    # The compute service's client (entryeditor_service.compute).
    COMPUTE_ADDR: str = "127.0.0.1:9090"
    COMPUTE_CONNECT_TIMEOUT: float = 0.2
    COMPUTE_TIMEOUT: float = 0.7
    # Unset: WEB_THREADS (one connection per thread, so no request waits for one).
    COMPUTE_POOL_SIZE: int | None = Field(None, ge=1)
    COMPUTE_BREAKER_FAILURES: int = Field(5, ge=1)
    COMPUTE_BREAKER_RESET: float = 1.0
    COMPUTE_MAX_K: int = Field(100, ge=1)

    # Cache: Redis at REDIS_URL (redis://user@host:port/db), or the local-memory cache when
    # unset. The user's password: REDIS_PASSWORD (or REDIS_PASSWORD_FILE).
    REDIS_URL: str = Field("", repr=False)
    REDIS_PASSWORD: str = Field("", repr=False)
    REDIS_PASSWORD_FILE: str = ""
    CACHE_TIMEOUT: int = Field(3600, ge=1)
    REDIS_TIMEOUT: float = 0.25
    REDIS_RETRY_AFTER: float = 2.0
    CACHE_KEY_PREFIX: str = "entryeditor"

    # Writes need `Authorization: Bearer <API_TOKEN>` (or the token in the file
    # API_TOKEN_FILE names); unset, every write is refused. API_AUTH_READS: reads need it too.
    API_TOKEN: str = Field("", repr=False)
    API_TOKEN_FILE: str = ""
    API_AUTH_READS: bool = False

    # HTTP Strict Transport Security on the answers to requests that reached the TLS edge in
    # front over HTTPS (config/settings.py, the README's "TLS"); 0: none. Subdomains and
    # the browsers' preload list are the domain owner's to opt into.
    SECURE_HSTS_SECONDS: int = Field(365 * 24 * 3600, ge=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS: bool = False
    SECURE_HSTS_PRELOAD: bool = False

    STATIC_ROOT: str = "staticfiles"
    LOG_LEVEL: str = "INFO"

    @model_validator(mode="before")
    @classmethod
    def _blank_is_unset(cls, values: Any) -> Any:
        if isinstance(values, dict):
            return {k: v for k, v in values.items() if not (isinstance(v, str) and not v.strip())}
        return values

    @field_validator("ALLOWED_HOSTS", mode="before")
    @classmethod
    def _split_hosts(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [host.strip() for host in value.split(",") if host.strip()] or (
                DEFAULT_ALLOWED_HOSTS
            )
        return value

    @classmethod
    def read(cls) -> Environment:
        """The environment, or ImproperlyConfigured naming each unusable variable."""
        try:
            return cls()
        except ValidationError as error:
            problems = "; ".join(_describe(e) for e in error.errors())
            raise ImproperlyConfigured(problems) from None


def _describe(error: ErrorDetails) -> str:
    name = str(error["loc"][0]) if error["loc"] else "environment"
    return f"{name}={error.get('input')!r}: {error['msg']}"
