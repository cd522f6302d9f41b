"""Django settings, read once from the environment (see the README's settings table).

The embedded defaults need nothing else installed: SQLite when DATABASE_URL is unset, the
local-memory cache when REDIS_URL is unset. Production sets SECRET_KEY (required unless DEBUG),
DATABASE_URL=mysql://... and REDIS_URL=redis://..., and the connection budget inputs
WEB_PROCESSES, WEB_THREADS and COMPUTE_DB_POOL (checked against MariaDB's max_connections).
"""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default).strip() or default


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in {"1", "true", "yes", "on"}:
        return True
    if raw in {"0", "false", "no", "off"}:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use true or false)")


def env_int(name: str, default: int, minimum: int = 0) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name}={value} is below its minimum {minimum}")
    return value


def env_float(name: str, default: float) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number") from None


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name, "")
    items = [item.strip() for item in raw.split(",") if item.strip()]
    return items or default


DEBUG = env_bool("DEBUG", False)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set: set SECRET_KEY to a long random string "
            "(or DEBUG=true for local development)"
        )
    SECRET_KEY = "insecure-development-key-used-only-with-DEBUG"  # noqa: S105
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "django.contrib.staticfiles",
    "rest_framework",
    "entryeditor_service.corpus",
    "entryeditor_service.entries",
]
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
# No cookies or sessions (the API authenticates nobody), hence no CSRF middleware.
SILENCED_SYSTEM_CHECKS = ["security.W003"]
ROOT_URLCONF = "entryeditor_service.urls"
WSGI_APPLICATION = "entryeditor_service.wsgi.application"
APPEND_SLASH = False  # every route answers with and without its trailing slash
# Largest request body (413 above it, before reading it when Content-Length says so).
DATA_UPLOAD_MAX_MEMORY_SIZE = env_int("MAX_BODY_SIZE", 1024 * 1024, minimum=1024)
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]

# Database: MariaDB/MySQL through mysqlclient, or the embedded SQLite file.
CONN_MAX_AGE = env_int("CONN_MAX_AGE", 60)
DATABASE_URL = os.environ.get("DATABASE_URL", "").strip()
if DATABASE_URL:
    _database = dj_database_url.parse(
        DATABASE_URL, conn_max_age=CONN_MAX_AGE, conn_health_checks=True
    )
else:
    _database = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(Path(env_str("SQLITE_PATH", "entryeditor.sqlite3")).resolve()),
        "CONN_MAX_AGE": CONN_MAX_AGE,
        "CONN_HEALTH_CHECKS": True,
    }
if _database["ENGINE"] == "django.db.backends.mysql":
    _database.setdefault("OPTIONS", {}).update(
        {"charset": "utf8mb4", "connect_timeout": env_int("DB_CONNECT_TIMEOUT", 5, minimum=1)}
    )
    _database["TEST"] = {"CHARSET": "utf8mb4", "COLLATION": "utf8mb4_bin"}
DATABASES = {"default": _database}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Connection budget: WEB_PROCESSES x WEB_THREADS + COMPUTE_DB_POOL + DB_CONNECTION_MARGIN must
# not exceed the server's max_connections (checked by `check --database default`, `migrate`
# and /readyz).
WEB_PROCESSES = env_int("WEB_PROCESSES", 1, minimum=1)
WEB_THREADS = env_int("WEB_THREADS", 1, minimum=1)
COMPUTE_DB_POOL = env_int("COMPUTE_DB_POOL", 4)
DB_CONNECTION_MARGIN = env_int("DB_CONNECTION_MARGIN", 3)

# The compute service (Thrift, entryeditor_service.compute): where it listens, the timeouts
# of each call (connect, then read: no call waits much longer than their sum), this
# process's connections to it (one per thread: no request waits for one), and its circuit
# breaker (opens after COMPUTE_BREAKER_FAILURES calls in a row got no answer; probes again
# after COMPUTE_BREAKER_RESET seconds).
COMPUTE_ADDR = env_str("COMPUTE_ADDR", "127.0.0.1:9090")
COMPUTE_CONNECT_TIMEOUT = env_float("COMPUTE_CONNECT_TIMEOUT", 0.2)
COMPUTE_TIMEOUT = env_float("COMPUTE_TIMEOUT", 0.7)
COMPUTE_POOL_SIZE = env_int("COMPUTE_POOL_SIZE", WEB_THREADS, minimum=1)
COMPUTE_BREAKER_FAILURES = env_int("COMPUTE_BREAKER_FAILURES", 5, minimum=1)
COMPUTE_BREAKER_RESET = env_float("COMPUTE_BREAKER_RESET", 1.0)
COMPUTE_MAX_K = env_int("COMPUTE_MAX_K", 100, minimum=1)

# Cache: Redis with short timeouts (an outage means computing without the cache), or
# local memory.
REDIS_URL = os.environ.get("REDIS_URL", "").strip()
CACHE_TIMEOUT = env_int("CACHE_TIMEOUT", 3600, minimum=1)
REDIS_TIMEOUT = env_float("REDIS_TIMEOUT", 0.25)
REDIS_RETRY_AFTER = env_float("REDIS_RETRY_AFTER", 2.0)
if REDIS_URL:
    _cache = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "OPTIONS": {
            "socket_connect_timeout": REDIS_TIMEOUT,
            "socket_timeout": REDIS_TIMEOUT,
            "retry_on_timeout": False,
        },
    }
else:
    _cache = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
_cache.update({"KEY_PREFIX": env_str("CACHE_KEY_PREFIX", "entryeditor"), "TIMEOUT": CACHE_TIMEOUT})
CACHES = {"default": _cache}

STATIC_URL = "/static/"
STATIC_ROOT = str(Path(env_str("STATIC_ROOT", "staticfiles")).resolve())

LANGUAGE_CODE = "zh-hans"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "UNAUTHENTICATED_USER": None,
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "entryeditor_service.errors.exception_handler",
    "UNICODE_JSON": True,
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
