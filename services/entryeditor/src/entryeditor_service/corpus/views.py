"""Corpus endpoints: /corpus/sentence/{id} and /corpus/statistics/*."""

from __future__ import annotations

import hashlib

from rest_framework.decorators import api_view
from rest_framework.request import Request
from rest_framework.response import Response

from entryeditor_service import cache
from entryeditor_service.corpus import params, queries
from entryeditor_service.corpus.patterns import Pattern
from entryeditor_service.errors import ApiError


@api_view(["GET"])
def sentence(request: Request, sentence_id: str) -> Response:
    row = queries.sentence(int(sentence_id))
    if row is None:
        raise ApiError(404, "not_found", f"No sentence {sentence_id}")
    return Response(row)


@api_view(["GET"])
def get_instance(request: Request) -> Response:
    query = params.parse(params.InstanceParams, request.query_params)
    return Response(queries.instances(**query))


@api_view(["GET"])
def get_count(request: Request) -> Response:
    query = params.parse(params.WordParams, request.query_params)
    return Response(queries.count(**query))


def pmi(word: str, pos: str | None, window: int, min_count: int, limit: int) -> tuple[dict, str]:
    """Collocates by PMI through the single-flight cache; (result, cache outcome)."""
    spec = f"{word}/{pos or ''}/{window}/{min_count}/{limit}"
    key = f"pmi:{queries.info().generation}:{hashlib.sha256(spec.encode()).hexdigest()[:32]}"
    value, outcome = cache.get_or_compute(
        key, lambda: queries.collocates(Pattern(word, pos), window, min_count, "pmi", limit)
    )
    return value, outcome


@api_view(["GET"])
def get_pmi(request: Request) -> Response:
    query = params.parse(params.PmiParams, request.query_params)
    value, outcome = pmi(**query)
    return Response(value, headers={"X-Cache": outcome})
