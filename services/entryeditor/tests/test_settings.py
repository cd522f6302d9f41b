"""Settings come from the environment (config/environment.py): the documented defaults,
values as given, blank as unset, and an unusable value stops the start with its name."""

from __future__ import annotations

import importlib.util
import os
import runpy
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

from entryeditor_service.config.environment import Environment


@pytest.fixture
def environ(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """An environment without any of the service's variables; set them on the result."""
    for name in Environment.model_fields:
        if name in os.environ:
            monkeypatch.delenv(name)
    return monkeypatch


def django_settings() -> dict[str, Any]:
    """The settings module run afresh in the current environment (not the one under test)."""
    spec = importlib.util.find_spec("entryeditor_service.config.settings")
    assert spec is not None and spec.origin is not None
    return runpy.run_path(spec.origin)


def test_defaults(environ: pytest.MonkeyPatch) -> None:
    environ.setenv("SECRET_KEY", "k")
    settings = django_settings()
    assert settings["DEBUG"] is False
    assert settings["ALLOWED_HOSTS"] == ["localhost", "127.0.0.1", "[::1]"]
    assert settings["DATABASES"]["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert settings["DATABASES"]["default"]["NAME"] == str(Path("entryeditor.sqlite3").resolve())
    assert settings["CACHES"]["default"]["BACKEND"].endswith("LocMemCache")
    assert (settings["WEB_CONCURRENCY"], settings["WEB_THREADS"]) == (1, 1)
    assert (settings["COMPUTE_DB_POOL"], settings["DB_CONNECTION_MARGIN"]) == (4, 3)
    assert settings["COMPUTE_ADDR"] == "127.0.0.1:9090"
    assert (settings["COMPUTE_CONNECT_TIMEOUT"], settings["COMPUTE_TIMEOUT"]) == (0.2, 0.7)
    assert settings["COMPUTE_POOL_SIZE"] == 1
    assert settings["DATA_UPLOAD_MAX_MEMORY_SIZE"] == 1024 * 1024
    assert settings["CACHES"]["default"]["KEY_PREFIX"] == "entryeditor"
    # TLS ends in front of nginx, which says the scheme (README "TLS").
    assert settings["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert settings["SECURE_HSTS_SECONDS"] == 365 * 24 * 3600
    assert settings["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is settings["SECURE_HSTS_PRELOAD"] is False


def test_values_from_the_environment(environ: pytest.MonkeyPatch) -> None:
    for name, value in {
        "SECRET_KEY": "k",
        "DEBUG": "yes",
        "ALLOWED_HOSTS": " a.example , b.example,",
        "DATABASE_URL": "mysql://root@127.0.0.1:3306/ee",
        "DB_CONNECT_TIMEOUT": "7",
        "DB_DEADLINE": "0.75",
        "REDIS_URL": "redis://127.0.0.1:6379/3",
        "REDIS_TIMEOUT": "0.5",
        "WEB_THREADS": "6",
        "CACHE_KEY_PREFIX": "",  # blank: the default
        "SECURE_HSTS_SECONDS": "3600",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": "true",
        "SECURE_HSTS_PRELOAD": "on",
    }.items():
        environ.setenv(name, value)
    settings = django_settings()
    assert settings["DEBUG"] is True
    assert settings["ALLOWED_HOSTS"] == ["a.example", "b.example"]
    database = settings["DATABASES"]["default"]
    assert (database["ENGINE"], database["NAME"]) == ("entryeditor_service.mariadb", "ee")
    assert database["OPTIONS"]["connect_timeout"] == 7
    assert database["DEADLINE"] == 0.75
    cache = settings["CACHES"]["default"]
    assert (cache["LOCATION"], cache["OPTIONS"]["socket_timeout"]) == (
        "redis://127.0.0.1:6379/3",
        0.5,
    )
    assert cache["KEY_PREFIX"] == "entryeditor"
    assert settings["COMPUTE_POOL_SIZE"] == 6  # one compute connection per web thread
    assert settings["SECURE_HSTS_SECONDS"] == 3600
    assert settings["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is settings["SECURE_HSTS_PRELOAD"] is True


def test_secret_key_is_required_unless_debug(environ: pytest.MonkeyPatch) -> None:
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY is not set"):
        django_settings()
    environ.setenv("DEBUG", "true")
    assert django_settings()["SECRET_KEY"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("DEBUG", "maybe"),
        ("WEB_THREADS", "0"),
        ("WEB_CONCURRENCY", "four"),
        ("COMPUTE_TIMEOUT", "soon"),
        ("MAX_BODY_SIZE", "10"),
        ("COMPUTE_POOL_SIZE", "0"),
        ("SECURE_HSTS_SECONDS", "-1"),
    ],
)
def test_an_unusable_value_is_named(environ: pytest.MonkeyPatch, name: str, value: str) -> None:
    environ.setenv(name, value)
    with pytest.raises(ImproperlyConfigured, match=f"{name}='{value}'"):
        Environment.read()


def test_secrets_from_files(environ: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """What compose and Kubernetes mount: the key and both passwords in files, read stripped;
    the URLs name the users only."""
    for name, value in {"key": "k" * 60, "db": "db-secret", "cache": "cache-secret"}.items():
        (tmp_path / name).write_text(value + "\n")
    environ.setenv("SECRET_KEY_FILE", str(tmp_path / "key"))
    environ.setenv("DATABASE_URL", "mysql://ee@127.0.0.1:3306/ee")
    environ.setenv("DATABASE_PASSWORD_FILE", str(tmp_path / "db"))
    environ.setenv("REDIS_URL", "redis://ee@127.0.0.1:6379/0")
    environ.setenv("REDIS_PASSWORD_FILE", str(tmp_path / "cache"))
    settings = django_settings()
    assert settings["SECRET_KEY"] == "k" * 60
    database = settings["DATABASES"]["default"]
    assert (database["USER"], database["PASSWORD"]) == ("ee", "db-secret")
    assert settings["CACHES"]["default"]["OPTIONS"]["password"] == "cache-secret"  # noqa: S105


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"SECRET_KEY": "k", "SECRET_KEY_FILE": "{dir}/key"}, "SECRET_KEY or SECRET_KEY_FILE"),
        ({"SECRET_KEY_FILE": "{dir}/missing"}, "SECRET_KEY_FILE=.*missing"),
        ({"SECRET_KEY": "k", "DATABASE_PASSWORD_FILE": "{dir}/empty"}, "is empty"),
        ({"SECRET_KEY": "k", "REDIS_PASSWORD_FILE": "{dir}/missing"}, "REDIS_PASSWORD_FILE="),
    ],
)
def test_an_unusable_secret_file_stops_the_start(
    environ: pytest.MonkeyPatch, tmp_path: Path, variables: dict[str, str], message: str
) -> None:
    (tmp_path / "key").write_text("k" * 60)
    (tmp_path / "empty").write_text("\n")
    for name, value in variables.items():
        environ.setenv(name, value.format(dir=tmp_path))
    with pytest.raises(ImproperlyConfigured, match=message):
        django_settings()
