"""Liveness and readiness."""

from __future__ import annotations

import logging
from typing import Any

from django.db import DatabaseError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response

from entryeditor_service import budget, cache, database
from entryeditor_service.corpus import queries
from entryeditor_service.head import api_view
from entryeditor_service.openapi import errors
from servicekit.health import not_ready

log = logging.getLogger(__name__)


@extend_schema(tags=["health"], responses={200: OpenApiTypes.OBJECT})
@api_view(["GET"])
def healthz(request: Request) -> Response:
    """The process answers; touches nothing else."""
    return Response({"status": "ok"})


@extend_schema(tags=["health"], responses={200: OpenApiTypes.OBJECT, **errors(503)})
@api_view(["GET"])
def readyz(request: Request) -> Response:
    """200 when the database answers, has our tables and fits the connection budget in its
    max_connections; 503 not_ready with Retry-After otherwise, naming what is missing (the
    driver's own text goes to the log).
    Says whether the cache answers (an outage there only slows get_pmi) and how much corpus
    is loaded."""
    the_budget = budget.Budget.from_settings()
    try:
        limit = budget.max_connections()
        corpus = queries.info()
    except DatabaseError as exc:
        log.warning("not ready: %s", exc)
        raise not_ready(
            "The database is unreachable"
            if database.unreachable(exc)
            else "The database answers but its tables cannot be read (not migrated?)"
        ) from exc
    problem = None if limit is None else the_budget.problem(limit)
    if problem is not None:
        raise not_ready(problem)
    db: dict[str, Any] = {"ok": True, "connection_budget": the_budget.total}
    if limit is not None:
        db["max_connections"] = limit
    return Response(
        {
            "status": "ready",
            "database": db,
            "corpus": {"sentences": corpus.sentences, "tokens": corpus.tokens},
            "cache": cache.probe(),
        }
    )
