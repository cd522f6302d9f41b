"""Liveness and readiness."""

from __future__ import annotations

from typing import Any

from django.db import DatabaseError
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response

from entryeditor_service import budget, cache
from entryeditor_service.corpus import queries
from entryeditor_service.openapi import errors


@extend_schema(tags=["health"], responses={200: OpenApiTypes.OBJECT})
@api_view(["GET"])
def healthz(request: Request) -> Response:
    """The process answers; touches nothing else."""
    return Response({"status": "ok"})


@extend_schema(tags=["health"], responses={200: OpenApiTypes.OBJECT, **errors(503)})
@api_view(["GET"])
def readyz(request: Request) -> Response:
    """200 when the database answers, has our tables and fits the connection budget in its
    max_connections; 503 otherwise. Says whether the cache answers (an outage there only
    slows get_pmi) and how much corpus is loaded."""
    database: dict[str, Any] = {"ok": False}
    body: dict[str, Any] = {"database": database}
    the_budget = budget.Budget.from_settings()
    try:
        limit = budget.max_connections()
        corpus = queries.info()
    except DatabaseError as exc:
        database["error"] = str(exc)
    else:
        database.update({"ok": True, "connection_budget": the_budget.total})
        body["corpus"] = {"sentences": corpus.sentences, "tokens": corpus.tokens}
        if limit is not None:
            database["max_connections"] = limit
            problem = the_budget.problem(limit)
            if problem is not None:
                database.update({"ok": False, "error": problem})
    ready = database["ok"]
    body.update({"status": "ok" if ready else "unavailable", "cache": cache.probe()})
    return Response(body, status=200 if ready else 503)
