"""Django settings, from the environment as config/environment.py reads it (see the README's
settings table).

The embedded defaults need nothing else installed: SQLite when DATABASE_URL is unset, the
local-memory cache when REDIS_URL is unset. Production sets SECRET_KEY (required unless DEBUG),
DATABASE_URL=mysql://... and REDIS_URL=redis://..., and the connection budget inputs
WEB_CONCURRENCY, WEB_THREADS and COMPUTE_DB_POOL (checked against MariaDB's max_connections).
Behind TLS the app needs the public host name in ALLOWED_HOSTS and nothing else (HSTS is on
by default; nginx, told the edge by REAL_IP_FROM, redirects): "TLS ends in front of nginx"
below.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from entryeditor_service.config.environment import Environment
from servicekit.auth import TokenConfigError, read_token
from servicekit.secretfiles import SecretConfigError, read_secret

env = Environment.read()

try:
    _SECRET_KEY = read_secret("SECRET_KEY", env.SECRET_KEY, env.SECRET_KEY_FILE)
    _DATABASE_PASSWORD = read_secret(
        "DATABASE_PASSWORD", env.DATABASE_PASSWORD, env.DATABASE_PASSWORD_FILE
    )
    _REDIS_PASSWORD = read_secret("REDIS_PASSWORD", env.REDIS_PASSWORD, env.REDIS_PASSWORD_FILE)
except SecretConfigError as error:
    raise ImproperlyConfigured(str(error)) from None

DEBUG = env.DEBUG
SECRET_KEY = _SECRET_KEY or ""
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set: set SECRET_KEY (or SECRET_KEY_FILE) to a long random string "
            "(or DEBUG=true for local development)"
        )
    SECRET_KEY = "insecure-development-key-used-only-with-DEBUG"  # noqa: S105
ALLOWED_HOSTS = env.ALLOWED_HOSTS
# The bearer token every write needs (servicekit.auth.django.BearerAuthMiddleware,
# docs/security.md).
try:
    API_TOKEN = read_token(env.API_TOKEN, env.API_TOKEN_FILE)
except TokenConfigError as error:
    raise ImproperlyConfigured(str(error)) from None
API_AUTH_READS = env.API_AUTH_READS

INSTALLED_APPS = [
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "entryeditor_service.corpus",
    "entryeditor_service.entries",
]
MIDDLEWARE = [
    "entryeditor_service.head.HeadMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "servicekit.auth.django.BearerAuthMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "servicekit.observe.django.RouteMiddleware",
    "entryeditor_service.database.BreakerMiddleware",
]
# No cookies or sessions (writes carry a bearer token, which a browser never sends on its
# own), hence no CSRF middleware (security.W003), and no session or CSRF cookie for
# SESSION_COOKIE_SECURE or CSRF_COOKIE_SECURE to keep off plain HTTP.
#
# TLS ends in front of nginx, never in this process: at a load balancer (or a TLS proxy of
# your own) in front of compose's entryeditor-nginx, at the Ingress on Kubernetes
# (deploy/k8s/base/entryeditor/ingress.yaml); the README's "TLS" says how, per recipe.
# - Which requests came over HTTPS: nginx sets X-Forwarded-Proto on every request it passes
#   on, to the edge's own where the request came from the edge (REAL_IP_FROM,
#   deploy/nginx/include/edge.inc), else to `http`; a client's own never reaches the app
#   through nginx. (On SCRAPE_PORT, Prometheus's port on the private network, a peer that
#   claims https changes its own answer only.) HTTPS requests get https links (the list's
#   `next`) and HSTS.
# - The redirect to https is nginx's (include/entryeditor-server.inc): 308 for what the edge
#   took over plain HTTP, the probes excepted. Django's SECURE_SSL_REDIRECT stays off (hence
#   security.W008 silenced): it cannot tell those requests from the plain HTTP that must be
#   answered, from the probes, Prometheus, clients of the Kubernetes Service inside the
#   cluster (the k6 TestRuns), the local runner, the tests and the benchmarks.
# - HSTS for SECURE_HSTS_SECONDS (a year unless set), on HTTPS answers only, so plain HTTP on
#   loopback is unaffected. includeSubDomains and preload bind every host of the domain, a
#   choice for its owner, not for this service: opt-ins (SECURE_HSTS_INCLUDE_SUBDOMAINS,
#   SECURE_HSTS_PRELOAD), whose reminders (security.W005, security.W021) are silenced.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_HSTS_SECONDS = env.SECURE_HSTS_SECONDS
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.SECURE_HSTS_INCLUDE_SUBDOMAINS
SECURE_HSTS_PRELOAD = env.SECURE_HSTS_PRELOAD
SILENCED_SYSTEM_CHECKS = ["security.W003", "security.W005", "security.W008", "security.W021"]
ROOT_URLCONF = "entryeditor_service.config.urls"
WSGI_APPLICATION = "entryeditor_service.config.wsgi.application"
APPEND_SLASH = False  # every route answers with and without its trailing slash
# Largest request body (413 above it, before reading it when Content-Length says so).
DATA_UPLOAD_MAX_MEMORY_SIZE = env.MAX_BODY_SIZE
# The service's own templates first: rest_framework/api.html names the service in the browsable
# API's navigation bar (DRF's links to its website).
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [str(Path(__file__).resolve().parents[1] / "templates")],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]

# Database: MariaDB/MySQL through mysqlclient, or the embedded SQLite file.
CONN_MAX_AGE = env.CONN_MAX_AGE
DATABASE_URL = env.DATABASE_URL
_database: dict[str, Any]
if DATABASE_URL:
    _database = dict(
        dj_database_url.parse(DATABASE_URL, conn_max_age=CONN_MAX_AGE, conn_health_checks=True)
    )
    if _DATABASE_PASSWORD is not None:
        _database["PASSWORD"] = _DATABASE_PASSWORD
else:
    _database = {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": str(Path(env.SQLITE_PATH).resolve()),
        "CONN_MAX_AGE": CONN_MAX_AGE,
        "CONN_HEALTH_CHECKS": True,
    }
if _database["ENGINE"] == "django.db.backends.mysql":
    # Django's backend, with a health check that gives up on a silent server.
    _database["ENGINE"] = "entryeditor_service.mariadb"
    _database.setdefault("OPTIONS", {}).update(
        {"charset": "utf8mb4", "connect_timeout": env.DB_CONNECT_TIMEOUT}
    )
    if env.DB_READ_TIMEOUT:
        _database["OPTIONS"].update(
            {"read_timeout": env.DB_READ_TIMEOUT, "write_timeout": env.DB_READ_TIMEOUT}
        )
    _database["DEADLINE"] = env.DB_DEADLINE
    _database["TEST"] = {"CHARSET": "utf8mb4", "COLLATION": "utf8mb4_bin"}
DATABASES = {"default": _database}
# entryeditor_service.database: how long every request answers 503 at once after one found
# the database unreachable, before one probes it again.
DB_BREAKER_RESET = env.DB_BREAKER_RESET
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Connection budget: WEB_CONCURRENCY x WEB_THREADS + COMPUTE_DB_POOL + DB_CONNECTION_MARGIN must
# not exceed the server's max_connections (checked by `check --database default`, `migrate`
# and /readyz).
WEB_CONCURRENCY = env.WEB_CONCURRENCY
WEB_THREADS = env.WEB_THREADS
COMPUTE_DB_POOL = env.COMPUTE_DB_POOL
DB_CONNECTION_MARGIN = env.DB_CONNECTION_MARGIN

# The compute service (Thrift, entryeditor_service.compute): where it listens, the timeouts
# of each call (connect, then read: no call waits much longer than their sum), this
# process's connections to it (one per thread: no request waits for one), and its circuit
# breaker (opens after COMPUTE_BREAKER_FAILURES calls in a row got no answer; probes again
# after COMPUTE_BREAKER_RESET seconds).
COMPUTE_ADDR = env.COMPUTE_ADDR
COMPUTE_CONNECT_TIMEOUT = env.COMPUTE_CONNECT_TIMEOUT
COMPUTE_TIMEOUT = env.COMPUTE_TIMEOUT
COMPUTE_POOL_SIZE = env.COMPUTE_POOL_SIZE or WEB_THREADS
COMPUTE_BREAKER_FAILURES = env.COMPUTE_BREAKER_FAILURES
COMPUTE_BREAKER_RESET = env.COMPUTE_BREAKER_RESET
COMPUTE_MAX_K = env.COMPUTE_MAX_K

# Cache: Redis with short timeouts (an outage means computing without the cache), or
# local memory.
REDIS_URL = env.REDIS_URL
CACHE_TIMEOUT = env.CACHE_TIMEOUT
REDIS_TIMEOUT = env.REDIS_TIMEOUT
REDIS_RETRY_AFTER = env.REDIS_RETRY_AFTER
_cache: dict[str, Any]
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
    if _REDIS_PASSWORD is not None:
        # redis-py takes the URL's user and this password (a password in the URL wins).
        _cache["OPTIONS"]["password"] = _REDIS_PASSWORD
else:
    _cache = {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
_cache.update({"KEY_PREFIX": env.CACHE_KEY_PREFIX, "TIMEOUT": CACHE_TIMEOUT})
CACHES = {"default": _cache}

STATIC_URL = "/static/"
STATIC_ROOT = str(Path(env.STATIC_ROOT).resolve())

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
    "DEFAULT_PARSER_CLASSES": ["entryeditor_service.parsers.BoundedJSONParser"],
    "EXCEPTION_HANDLER": "entryeditor_service.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "entryeditor_service.openapi.Schema",
    "UNICODE_JSON": True,
}

# The OpenAPI schema at /api/schema/ (entryeditor_service.openapi; its BEARER names the
# security scheme declared here).
SPECTACULAR_SETTINGS = {
    "TITLE": "servelab entry editor",
    "DESCRIPTION": "Entries of a dictionary and the corpus they are built from (write-up 003).",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "APPEND_COMPONENTS": {"securitySchemes": {"bearerAuth": {"type": "http", "scheme": "bearer"}}},
    "COMPONENT_SPLIT_REQUEST": True,
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "entryeditor_service.openapi.patch_names_its_version",
        "entryeditor_service.openapi.strings_as_drf_takes_them",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env.LOG_LEVEL},
}
